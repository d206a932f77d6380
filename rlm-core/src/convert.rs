//! Values crossing the sandbox boundary: Python values (monty's [`ObjectRef`]) to
//! JSON and back.
//!
//! A Python value reaches the host as a DAG: `a = [a, a]` sixty-four times is a
//! few hundred bytes inside the REPL, and every shared sub-object is one node. JSON
//! is a tree, so converting copies a shared sub-object once per reference, and that
//! DAG becomes 2^64 leaves. [`to_json_bounded`] therefore converts against a
//! [`Budget`] of expanded nodes, string bytes and depth, charged as it goes (a
//! shared sub-object is charged once per reference, as the copy costs), and stops
//! with a readable [`TooLarge`] as soon as the budget is spent; the whole cost is
//! bounded by the budget, never by the value.

use monty_types::{MontyObject, ObjectRef};
use serde_json::{Map, Value};

/// Limits of one conversion.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Budget {
    /// Values (containers and leaves) the expanded tree may have.
    pub nodes: usize,
    /// Bytes of string text, summed over every copy.
    pub bytes: usize,
    /// Nesting depth.
    pub depth: usize,
}

impl Budget {
    /// The budget for the arguments of one host call and for the `answer` dict:
    /// one million values, 64 MiB of text, 200 levels.
    pub const HOST_CALL: Budget = Budget {
        nodes: 1_000_000,
        bytes: 64 * 1024 * 1024,
        depth: 200,
    };
}

/// A value too large (once shared parts are copied) or too deep to convert.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "value too large to pass out of the REPL: {what} (limit {limit}); a sub-object referenced \
     n times counts n times, so pass smaller or less repetitive values"
)]
pub struct TooLarge {
    /// Which limit was hit.
    pub what: &'static str,
    /// The limit.
    pub limit: usize,
}

struct Meter {
    nodes_left: usize,
    bytes_left: usize,
    max: Budget,
}

impl Meter {
    fn node(&mut self) -> Result<(), TooLarge> {
        self.nodes_left = self.nodes_left.checked_sub(1).ok_or(TooLarge {
            what: "more values than allowed",
            limit: self.max.nodes,
        })?;
        Ok(())
    }

    fn text(&mut self, n: usize) -> Result<(), TooLarge> {
        self.bytes_left = self.bytes_left.checked_sub(n).ok_or(TooLarge {
            what: "more bytes of text than allowed",
            limit: self.max.bytes,
        })?;
        Ok(())
    }
}

/// Convert a Python value to JSON within `budget`: numbers, strings, booleans,
/// `None`, lists, tuples and sets as arrays, dicts as objects; anything else as its
/// `repr` (charged as text).
pub fn to_json_bounded(o: ObjectRef<'_>, budget: Budget) -> Result<Value, TooLarge> {
    let mut m = Meter {
        nodes_left: budget.nodes,
        bytes_left: budget.bytes,
        max: budget,
    };
    convert(o, &mut m, 0)
}

/// [`to_json_bounded`] with [`Budget::HOST_CALL`], turning an over-budget value
/// into a string saying so (for callers that cannot fail).
pub fn to_json(o: ObjectRef<'_>) -> Value {
    to_json_bounded(o, Budget::HOST_CALL).unwrap_or_else(|e| Value::String(e.to_string()))
}

fn convert(o: ObjectRef<'_>, m: &mut Meter, depth: usize) -> Result<Value, TooLarge> {
    m.node()?;
    if depth > m.max.depth {
        return Err(TooLarge {
            what: "nested deeper than allowed",
            limit: m.max.depth,
        });
    }
    let repr = |m: &mut Meter| -> Result<Value, TooLarge> {
        let r = o.py_repr();
        m.text(r.len())?;
        Ok(Value::String(r))
    };
    match o.type_name() {
        "NoneType" => Ok(Value::Null),
        "bool" => Ok(o.as_bool().map_or(Value::Null, Value::Bool)),
        "int" => match o.as_int() {
            Some(i) => Ok(Value::from(i)),
            None => repr(m),
        },
        "float" => match o.as_float().and_then(serde_json::Number::from_f64) {
            Some(n) => Ok(Value::Number(n)),
            None => repr(m),
        },
        "str" => {
            let s = o.as_str().unwrap_or_default();
            m.text(s.len())?;
            Ok(Value::String(s.to_string()))
        }
        _ => {
            if let Some(items) = o.items() {
                let mut out = Vec::new();
                for it in items {
                    out.push(convert(it, m, depth + 1)?);
                }
                Ok(Value::Array(out))
            } else if o.type_name() == "dict" {
                let mut out = Map::new();
                for (k, v) in o.pairs().unwrap_or_default() {
                    let key = match k.as_str() {
                        Some(s) => s.to_string(),
                        None => k.py_repr(),
                    };
                    m.text(key.len())?;
                    out.insert(key, convert(v, m, depth + 1)?);
                }
                Ok(Value::Object(out))
            } else {
                repr(m)
            }
        }
    }
}

/// Convert JSON to a Python value (objects become dicts with keys in order).
pub fn from_json(v: &Value) -> MontyObject {
    match v {
        Value::Null => MontyObject::none(),
        Value::Bool(b) => MontyObject::bool(*b),
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                MontyObject::int(i)
            } else {
                MontyObject::float(n.as_f64().unwrap_or(f64::NAN))
            }
        }
        Value::String(s) => MontyObject::string(s.clone()),
        Value::Array(items) => MontyObject::list(items.iter().map(from_json)),
        Value::Object(m) => MontyObject::dict(
            m.iter()
                .map(|(k, v)| (MontyObject::string(k.clone()), from_json(v))),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shared_values_are_charged_per_reference() {
        let leaf = MontyObject::string("x".repeat(10));
        let pair = MontyObject::list([leaf.clone(), leaf]);
        let small = Budget {
            nodes: 100,
            bytes: 15,
            depth: 10,
        };
        let e = to_json_bounded(pair.as_ref(), small).unwrap_err();
        assert_eq!(e.what, "more bytes of text than allowed");
        let ok = to_json_bounded(pair.as_ref(), Budget { bytes: 20, ..small }).unwrap();
        assert_eq!(ok.as_array().unwrap().len(), 2);
    }

    #[test]
    fn deep_values_stop_at_the_depth_limit() {
        let mut v = MontyObject::none();
        for _ in 0..50 {
            v = MontyObject::list([v]);
        }
        let e = to_json_bounded(
            v.as_ref(),
            Budget {
                depth: 20,
                ..Budget::HOST_CALL
            },
        )
        .unwrap_err();
        assert_eq!(e.limit, 20);
    }
}
