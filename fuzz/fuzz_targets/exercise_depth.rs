//! Fuzzes the depth and size limits of exercise files and checks: the input is expanded into text
//! with long runs (a byte below 8 repeats the byte after it 100 to 800 times), so nesting
//! hundreds deep — 25 to 50 times the bounds: brackets, braces, parentheses, `!`, `-`, calls — is
//! common. Reading must end
//! in a value within the limits or an error, never a stack overflow or a panic.
#![no_main]

use checkpoint_lab::lesson::exercise::expr::{self, Expr};
use checkpoint_lab::lesson::exercise::{Exercise, MAX_JSON_DEPTH};
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

/// The input with its runs expanded, at most 20,000 characters.
fn expand(data: &[u8]) -> String {
    let mut out = String::new();
    let mut i = 0;
    while i < data.len() && out.len() < 20_000 {
        match data[i] {
            n @ 0..=7 if i + 1 < data.len() => {
                out.extend(std::iter::repeat_n(char::from(data[i + 1]), (usize::from(n) + 1) * 100));
                i += 2;
            }
            b => {
                out.push(char::from(b));
                i += 1;
            }
        }
    }
    out
}

/// How deep a JSON value nests (a scalar is 1), without recursion.
fn json_depth(value: &Value) -> usize {
    let (mut deepest, mut stack) = (0, vec![(value, 1)]);
    while let Some((v, d)) = stack.pop() {
        deepest = deepest.max(d);
        match v {
            Value::Array(items) => stack.extend(items.iter().map(|c| (c, d + 1))),
            Value::Object(map) => stack.extend(map.values().map(|c| (c, d + 1))),
            _ => {}
        }
    }
    deepest
}

/// How deep an expression is (a leaf is 1), without recursion.
fn expr_depth(expr: &Expr) -> usize {
    let (mut deepest, mut stack) = (0, vec![(expr, 1)]);
    while let Some((e, d)) = stack.pop() {
        deepest = deepest.max(d);
        match e {
            Expr::Not(inner) | Expr::Neg(inner) => stack.push((inner, d + 1)),
            Expr::Binary(left, _, right) => stack.extend([(&**left, d + 1), (&**right, d + 1)]),
            Expr::Call(_, args) => stack.extend(args.iter().map(|a| (a, d + 1))),
            _ => {}
        }
    }
    deepest
}

fuzz_target!(|data: &[u8]| {
    let text = expand(data);
    if let Ok(list) = Exercise::parse_list_unvalidated(&text) {
        // Whatever was read lies within the bound (the list itself is one level).
        let value: Value = serde_json::from_str(&text).expect("read once, reads again");
        assert!(json_depth(&value) <= MAX_JSON_DEPTH + 1, "a file nested past the bound was read");
        assert_eq!(list.len(), value.as_array().map_or(0, Vec::len));
    }
    if let Ok(parsed) = expr::parse(&text) {
        assert!(expr_depth(&parsed) <= expr::MAX_DEPTH);
        let scope = serde_json::json!({"answer": 1.5, "replayed_events": 30000, "choice": "upsert"});
        let _ = expr::eval(&parsed, &scope);
    }
});
