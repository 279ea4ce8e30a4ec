//! Charts drawn from the report with plotters, generic over the drawing backend.
