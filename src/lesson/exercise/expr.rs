//! The check language of exercises: a small, safe expression language over report fields and
//! settings, parsed and evaluated in Rust (no JavaScript eval). Numbers, strings, true/false,
//! null, dotted names (`sinks.upsert.duplicate_rows`, `interval_ms`, `answer`), + - * /, comparisons,
//! `&&`, `||`, `!`, parentheses and the functions abs, min and max.

use serde_json::Value;

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

struct Parser {
    tokens: Vec<(usize, Token)>,
    at: usize,
    len: usize,
}

impl Parser {
    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.at).map(|t| &t.1)
    }

    fn position(&self) -> usize {
        self.tokens.get(self.at).map_or(self.len, |t| t.0)
    }

    fn eat(&mut self, sym: &str) -> bool {
        if matches!(self.peek(), Some(Token::Sym(s)) if *s == sym) {
            self.at += 1;
            true
        } else {
            false
        }
    }

    fn binary(&mut self, ops: &[(&str, Op)], next: fn(&mut Parser) -> Result<Expr, String>) -> Result<Expr, String> {
        let mut left = next(self)?;
        'outer: loop {
            for (sym, op) in ops {
                if self.eat(sym) {
                    let right = next(self)?;
                    left = Expr::Binary(Box::new(left), *op, Box::new(right));
                    continue 'outer;
                }
            }
            return Ok(left);
        }
    }

    fn or(&mut self) -> Result<Expr, String> {
        self.binary(&[("||", Op::Or)], Parser::and)
    }

    fn and(&mut self) -> Result<Expr, String> {
        self.binary(&[("&&", Op::And)], Parser::comparison)
    }

    fn comparison(&mut self) -> Result<Expr, String> {
        let ops = [("<=", Op::Le), (">=", Op::Ge), ("==", Op::Eq), ("!=", Op::Ne), ("<", Op::Lt), (">", Op::Gt)];
        self.binary(&ops, Parser::sum)
    }

    fn sum(&mut self) -> Result<Expr, String> {
        self.binary(&[("+", Op::Add), ("-", Op::Sub)], Parser::product)
    }

    fn product(&mut self) -> Result<Expr, String> {
        self.binary(&[("*", Op::Mul), ("/", Op::Div)], Parser::unary)
    }

    fn unary(&mut self) -> Result<Expr, String> {
        if self.eat("!") {
            return Ok(Expr::Not(Box::new(self.unary()?)));
        }
        if self.eat("-") {
            return Ok(Expr::Neg(Box::new(self.unary()?)));
        }
        self.atom()
    }

    fn atom(&mut self) -> Result<Expr, String> {
        let position = self.position();
        let token = self.peek().cloned().ok_or_else(|| format!("unexpected end at {position}"))?;
        self.at += 1;
        match token {
            Token::Number(n) => Ok(Expr::Number(n)),
            Token::Text(t) => Ok(Expr::Text(t)),
            Token::Ident(name) if name == "true" => Ok(Expr::Bool(true)),
            Token::Ident(name) if name == "false" => Ok(Expr::Bool(false)),
            Token::Ident(name) if name == "null" => Ok(Expr::Null),
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
                let mut args = vec![self.or()?];
                while self.eat(",") {
                    args.push(self.or()?);
                }
                if !self.eat(")") {
                    return Err(format!("expected ) at {}", self.position()));
                }
                let arity_ok = match func {
                    Func::Abs => args.len() == 1,
                    Func::Min | Func::Max => args.len() >= 2,
                };
                if !arity_ok {
                    return Err(format!("wrong number of arguments to {name} at {position}"));
                }
                Ok(Expr::Call(func, args))
            }
            Token::Ident(name) => Ok(Expr::Name(name)),
            Token::Sym("(") => {
                let inner = self.or()?;
                if !self.eat(")") {
                    return Err(format!("expected ) at {}", self.position()));
                }
                Ok(inner)
            }
            Token::Sym(s) => Err(format!("unexpected {s:?} at {position}")),
        }
    }
}

/// Parses an expression; the error says what is wrong and at which character.
pub fn parse(src: &str) -> Result<Expr, String> {
    let tokens = tokenize(src)?;
    let mut parser = Parser { tokens, at: 0, len: src.len() };
    let expr = parser.or()?;
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
}
