//! The check language of exercises: a small, safe expression language over report fields and
//! settings, parsed and evaluated in Rust (no JavaScript eval). Numbers, strings, true/false,
//! null, dotted names (`sinks.upsert.duplicate_rows`, `interval_ms`, `answer`), + - * /, comparisons,
//! `&&`, `||`, `!`, parentheses and the functions abs, min and max.
//!
//! Checks are bounded before they are read: at most [`MAX_CHECK_CHARS`] characters, nested at
//! most [`MAX_NESTING`] levels deep (parentheses, `!`, `-`, function calls) and at most
//! [`MAX_DEPTH`] operations deep in all, so neither parsing nor evaluation can exhaust the stack.

use serde_json::Value;

/// The longest check, in characters; the built-in checks are under 200.
pub const MAX_CHECK_CHARS: usize = 10_000;
/// How deeply parentheses, `!`, `-` and function calls may nest.
pub const MAX_NESTING: usize = 32;
/// How deep the parsed expression may be in all (a chain `a + b + c` is one level per operator).
pub const MAX_DEPTH: usize = 256;

#[derive(Clone, Debug, PartialEq)]
pub enum Expr {
    Number(f64),
    Text(String),
    Bool(bool),
    Null,
    Name(String),
    Not(Box<Expr>),
    Neg(Box<Expr>),
    Binary(Box<Expr>, Op, Box<Expr>),
    Call(Func, Vec<Expr>),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    Add,
    Sub,
    Mul,
    Div,
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
    And,
    Or,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Func {
    Abs,
    Min,
    Max,
}

/// A value during evaluation.
#[derive(Clone, Debug, PartialEq)]
pub enum Val {
    Number(f64),
    Text(String),
    Bool(bool),
    Null,
}

#[derive(Clone, Debug, PartialEq)]
enum Token {
    Number(f64),
    Text(String),
    Ident(String),
    Sym(&'static str),
}

fn tokenize(src: &str) -> Result<Vec<(usize, Token)>, String> {
    let chars: Vec<char> = src.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_whitespace() {
            i += 1;
        } else if c.is_ascii_digit() || (c == '.' && chars.get(i + 1).is_some_and(|d| d.is_ascii_digit())) {
            let start = i;
            while i < chars.len()
                && (chars[i].is_ascii_digit() || chars[i] == '.' || chars[i] == '_' || chars[i] == 'e')
            {
                i += 1;
            }
            let text: String = chars[start..i].iter().filter(|c| **c != '_').collect();
            let n = text.parse::<f64>().map_err(|_| format!("bad number {text:?} at {start}"))?;
            out.push((start, Token::Number(n)));
        } else if c.is_ascii_alphabetic() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '_' || chars[i] == '.') {
                i += 1;
            }
            out.push((start, Token::Ident(chars[start..i].iter().collect())));
        } else if c == '"' || c == '\'' {
            let start = i;
            i += 1;
            let from = i;
            while i < chars.len() && chars[i] != c {
                i += 1;
            }
            if i >= chars.len() {
                return Err(format!("unterminated string at {start}"));
            }
            out.push((start, Token::Text(chars[from..i].iter().collect())));
            i += 1;
        } else {
            let two: String = chars[i..(i + 2).min(chars.len())].iter().collect();
            let sym = ["<=", ">=", "==", "!=", "&&", "||"].into_iter().find(|s| *s == two);
            if let Some(s) = sym {
                out.push((i, Token::Sym(s)));
                i += 2;
            } else {
                let one = ["+", "-", "*", "/", "<", ">", "!", "(", ")", ","].into_iter().find(|s| s.starts_with(c));
                match one {
                    Some(s) => out.push((i, Token::Sym(s))),
                    None => return Err(format!("unexpected character {c:?} at {i}")),
                }
                i += 1;
            }
        }
    }
    Ok(out)
}

/// An expression and its depth (a leaf is 1).
type Parsed = (Expr, usize);

struct Parser {
    tokens: Vec<(usize, Token)>,
    at: usize,
    len: usize,
    /// Parentheses, `!`, `-` and calls open around the current position.
    nesting: usize,
}

impl Parser {
    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.at).map(|t| &t.1)
    }

    fn position(&self) -> usize {
        self.tokens.get(self.at).map_or(self.len, |t| t.0)
    }

    /// Enters one more level of nesting, refusing to go past [`MAX_NESTING`].
    fn enter(&mut self, position: usize) -> Result<(), String> {
        self.nesting += 1;
        if self.nesting > MAX_NESTING {
            return Err(format!("nests deeper than {MAX_NESTING} levels at {position}"));
        }
        Ok(())
    }

    fn eat(&mut self, sym: &str) -> bool {
        if matches!(self.peek(), Some(Token::Sym(s)) if *s == sym) {
            self.at += 1;
            true
        } else {
            false
        }
    }

    /// A node over `children` is one deeper than the deepest of them; past [`MAX_DEPTH`] the
    /// expression is refused while it is built, so nothing deeper is ever evaluated or dropped.
    fn node(&self, expr: Expr, children: &[usize]) -> Result<Parsed, String> {
        let depth = 1 + children.iter().copied().max().unwrap_or(0);
        if depth > MAX_DEPTH {
            return Err(format!("is more than {MAX_DEPTH} operations deep at {}", self.position()));
        }
        Ok((expr, depth))
    }

    fn binary(
        &mut self,
        ops: &[(&str, Op)],
        next: fn(&mut Parser) -> Result<Parsed, String>,
    ) -> Result<Parsed, String> {
        let mut left = next(self)?;
        'outer: loop {
            for (sym, op) in ops {
                if self.eat(sym) {
                    let right = next(self)?;
                    left = self.node(Expr::Binary(Box::new(left.0), *op, Box::new(right.0)), &[left.1, right.1])?;
                    continue 'outer;
                }
            }
            return Ok(left);
        }
    }

    fn or(&mut self) -> Result<Parsed, String> {
        self.binary(&[("||", Op::Or)], Parser::and)
    }

    fn and(&mut self) -> Result<Parsed, String> {
        self.binary(&[("&&", Op::And)], Parser::comparison)
    }

    fn comparison(&mut self) -> Result<Parsed, String> {
        let ops = [("<=", Op::Le), (">=", Op::Ge), ("==", Op::Eq), ("!=", Op::Ne), ("<", Op::Lt), (">", Op::Gt)];
        self.binary(&ops, Parser::sum)
    }

    fn sum(&mut self) -> Result<Parsed, String> {
        self.binary(&[("+", Op::Add), ("-", Op::Sub)], Parser::product)
    }

    fn product(&mut self) -> Result<Parsed, String> {
        self.binary(&[("*", Op::Mul), ("/", Op::Div)], Parser::unary)
    }

    fn unary(&mut self) -> Result<Parsed, String> {
        let position = self.position();
        for (sym, make) in [("!", Expr::Not as fn(Box<Expr>) -> Expr), ("-", Expr::Neg)] {
            if self.eat(sym) {
                self.enter(position)?;
                let inner = self.unary()?;
                self.nesting -= 1;
                return self.node(make(Box::new(inner.0)), &[inner.1]);
            }
        }
        self.atom()
    }

    fn atom(&mut self) -> Result<Parsed, String> {
        let position = self.position();
        let token = self.peek().cloned().ok_or_else(|| format!("unexpected end at {position}"))?;
        self.at += 1;
        match token {
            Token::Number(n) => Ok((Expr::Number(n), 1)),
            Token::Text(t) => Ok((Expr::Text(t), 1)),
            Token::Ident(name) if name == "true" => Ok((Expr::Bool(true), 1)),
            Token::Ident(name) if name == "false" => Ok((Expr::Bool(false), 1)),
            Token::Ident(name) if name == "null" => Ok((Expr::Null, 1)),
            Token::Ident(name) if self.eat("(") => {
                let func = match name.as_str() {
                    "abs" => Func::Abs,
                    "min" => Func::Min,
                    "max" => Func::Max,
                    other => {
                        return Err(format!(
                            "unknown function {other:?} at {position}; the functions are abs, min, max"
                        ))
                    }
                };
                self.enter(position)?;
                let mut args = vec![self.or()?];
                while self.eat(",") {
                    args.push(self.or()?);
                }
                if !self.eat(")") {
                    return Err(format!("expected ) at {}", self.position()));
                }
                self.nesting -= 1;
                let arity_ok = match func {
                    Func::Abs => args.len() == 1,
                    Func::Min | Func::Max => args.len() >= 2,
                };
                if !arity_ok {
                    return Err(format!("wrong number of arguments to {name} at {position}"));
                }
                let depths: Vec<usize> = args.iter().map(|a| a.1).collect();
                self.node(Expr::Call(func, args.into_iter().map(|a| a.0).collect()), &depths)
            }
            Token::Ident(name) => Ok((Expr::Name(name), 1)),
            Token::Sym("(") => {
                self.enter(position)?;
                let inner = self.or()?;
                if !self.eat(")") {
                    return Err(format!("expected ) at {}", self.position()));
                }
                self.nesting -= 1;
                Ok(inner)
            }
            Token::Sym(s) => Err(format!("unexpected {s:?} at {position}")),
        }
    }
}

/// Parses an expression; the error says what is wrong and at which character. Text longer than
/// [`MAX_CHECK_CHARS`] or nested deeper than [`MAX_NESTING`] / [`MAX_DEPTH`] is refused.
pub fn parse(src: &str) -> Result<Expr, String> {
    let chars = src.chars().count();
    if chars > MAX_CHECK_CHARS {
        return Err(format!("is {chars} characters long, more than the {MAX_CHECK_CHARS} allowed"));
    }
    let tokens = tokenize(src)?;
    let mut parser = Parser { tokens, at: 0, len: src.len(), nesting: 0 };
    let (expr, _) = parser.or()?;
    if parser.at < parser.tokens.len() {
        return Err(format!("unexpected text at {}", parser.position()));
    }
    Ok(expr)
}

/// Looks a dotted name up in `scope` (an object); `None` if it does not exist.
pub fn lookup(scope: &Value, name: &str) -> Option<Val> {
    let mut value = scope;
    for part in name.split('.') {
        value = value.get(part)?;
    }
    Some(match value {
        Value::Number(n) => Val::Number(n.as_f64()?),
        Value::String(s) => Val::Text(s.clone()),
        Value::Bool(b) => Val::Bool(*b),
        Value::Null => Val::Null,
        _ => return None,
    })
}

fn number(v: Val, what: &str) -> Result<f64, String> {
    match v {
        Val::Number(n) => Ok(n),
        other => Err(format!("{what} is not a number ({other:?})")),
    }
}

/// Evaluates against a scope object; every name must exist in it.
pub fn eval(expr: &Expr, scope: &Value) -> Result<Val, String> {
    Ok(match expr {
        Expr::Number(n) => Val::Number(*n),
        Expr::Text(t) => Val::Text(t.clone()),
        Expr::Bool(b) => Val::Bool(*b),
        Expr::Null => Val::Null,
        Expr::Name(name) => lookup(scope, name).ok_or_else(|| format!("unknown name {name:?}"))?,
        Expr::Not(inner) => match eval(inner, scope)? {
            Val::Bool(b) => Val::Bool(!b),
            other => return Err(format!("! needs true or false, got {other:?}")),
        },
        Expr::Neg(inner) => Val::Number(-number(eval(inner, scope)?, "the operand of -")?),
        Expr::Call(func, args) => {
            let values: Vec<f64> =
                args.iter().map(|a| eval(a, scope).and_then(|v| number(v, "an argument"))).collect::<Result<_, _>>()?;
            Val::Number(match func {
                Func::Abs => values[0].abs(),
                Func::Min => values.iter().copied().fold(f64::INFINITY, f64::min),
                Func::Max => values.iter().copied().fold(f64::NEG_INFINITY, f64::max),
            })
        }
        Expr::Binary(left, op, right) => {
            let l = eval(left, scope)?;
            if matches!(op, Op::And | Op::Or) {
                let lb = match l {
                    Val::Bool(b) => b,
                    other => return Err(format!("&& and || need true or false, got {other:?}")),
                };
                if (*op == Op::And && !lb) || (*op == Op::Or && lb) {
                    return Ok(Val::Bool(lb));
                }
                return match eval(right, scope)? {
                    Val::Bool(b) => Ok(Val::Bool(b)),
                    other => Err(format!("&& and || need true or false, got {other:?}")),
                };
            }
            let r = eval(right, scope)?;
            match op {
                Op::Eq => Val::Bool(l == r),
                Op::Ne => Val::Bool(l != r),
                _ => {
                    let (a, b) = (number(l, "the left operand")?, number(r, "the right operand")?);
                    match op {
                        Op::Add => Val::Number(a + b),
                        Op::Sub => Val::Number(a - b),
                        Op::Mul => Val::Number(a * b),
                        Op::Div => Val::Number(a / b),
                        Op::Lt => Val::Bool(a < b),
                        Op::Le => Val::Bool(a <= b),
                        Op::Gt => Val::Bool(a > b),
                        Op::Ge => Val::Bool(a >= b),
                        Op::Eq | Op::Ne | Op::And | Op::Or => unreachable!("handled above"),
                    }
                }
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(src: &str, scope: &Value) -> Result<Val, String> {
        eval(&parse(src)?, scope)
    }

    #[test]
    fn evaluates_over_report_fields() {
        let scope = serde_json::json!({"replayed_events": 30000, "sinks": {"upsert": {"duplicate_rows": 0}}, "alignment": "aligned", "recovery_s": null});
        assert_eq!(run("replayed_events / 1000 + 1", &scope), Ok(Val::Number(31.0)));
        assert_eq!(run("sinks.upsert.duplicate_rows == 0 && alignment == 'aligned'", &scope), Ok(Val::Bool(true)));
        assert_eq!(run("abs(-5) <= max(1, 2, 5) || false", &scope), Ok(Val::Bool(true)));
        assert_eq!(run("!(replayed_events > 1_000_000)", &scope), Ok(Val::Bool(true)));
        assert_eq!(run("recovery_s == null_value", &scope).unwrap_err(), "unknown name \"null_value\"");
        assert!(run("replayed_events >", &scope).is_err());
        assert!(run("system('rm')", &scope).unwrap_err().contains("unknown function"));
        assert!(run("replayed_events ; 1", &scope).unwrap_err().contains("unexpected character"));
        assert!(run("alignment + 1", &scope).is_err());
    }

    #[test]
    fn nesting_is_bounded_with_an_error_not_a_stack_overflow() {
        let scope = serde_json::json!({"answer": 1});
        let deep = format!("{}answer{}", "(".repeat(1_000), ")".repeat(1_000));
        assert_eq!(parse(&deep).unwrap_err(), format!("nests deeper than {MAX_NESTING} levels at {MAX_NESTING}"));
        assert!(parse(&"!".repeat(1_000)).unwrap_err().starts_with("nests deeper than 32 levels"));
        assert!(parse(&"-".repeat(1_000)).unwrap_err().starts_with("nests deeper than 32 levels"));
        assert!(parse(&format!("{}1{}", "abs(".repeat(500), ")".repeat(500))).unwrap_err().starts_with("nests deeper"));
        // Up to the bound, nesting works.
        let ok = format!("{}answer{} == 1", "(".repeat(MAX_NESTING), ")".repeat(MAX_NESTING));
        assert_eq!(run(&ok, &scope), Ok(Val::Bool(true)));
        // A long flat chain is as deep as it has operators: refused past MAX_DEPTH, fine below.
        let chain = |n: usize| format!("answer{}", " + 1".repeat(n));
        assert_eq!(run(&chain(MAX_DEPTH - 1), &scope), Ok(Val::Number(MAX_DEPTH as f64)));
        assert!(parse(&chain(MAX_DEPTH))
            .unwrap_err()
            .starts_with(&format!("is more than {MAX_DEPTH} operations deep at ")));
        assert!(parse(&chain(2_000)).unwrap_err().starts_with("is more than"));
        // Length is bounded before anything is read.
        let long = "1".repeat(MAX_CHECK_CHARS + 1);
        assert_eq!(
            parse(&long).unwrap_err(),
            format!("is 10001 characters long, more than the {MAX_CHECK_CHARS} allowed")
        );
    }
}
