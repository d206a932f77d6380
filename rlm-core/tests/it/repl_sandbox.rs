//! The sandboxed REPL (SPEC §5.1): the Python models write, escape attempts
//! refused, limits that stop a block and leave the session usable.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::time::Duration;

use rlm_core::{LimitHit, NoHost, Repl, ReplLimits};

/// The sandbox tests' limits, with a shorter block time, a lower recursion
/// limit and 1 MiB of output a block.
fn limits() -> ReplLimits {
    ReplLimits {
        max_recursion: 100,
        max_output_bytes: 1024 * 1024,
        ..crate::common::sandbox_limits(Duration::from_millis(1500))
    }
}

/// Run `code` in a fresh session and return (output, error).
async fn run(repl: &mut Repl, code: &str) -> (String, Option<String>, Option<LimitHit>) {
    let r = repl.run(code, &NoHost).await;
    (r.output, r.error, r.limit)
}

/// SPEC §5.1 coverage: each case's printed output must match CPython's.
const COVERAGE: &[(&str, &str, &str)] = &[
    (
        "f-string",
        "x = 3\nprint(f'{x} items, {x*2:>4}|{3.14159:.2f}')",
        "3 items,    6|3.14\n",
    ),
    (
        "comprehensions",
        "print([i*i for i in range(5) if i % 2 == 0], {k: v for k, v in zip('ab', [1, 2])}, {c for c in 'aab'} == {'a', 'b'})",
        "[0, 4, 16] {'a': 1, 'b': 2} True\n",
    ),
    (
        "slicing",
        "s = 'abcdefgh'\nprint(s[2:5], s[::-1], s[-3:], [1,2,3,4][1::2])",
        "cde hgfedcba fgh [2, 4]\n",
    ),
    (
        "for/while",
        "n = 0\nfor i in range(3):\n    n += i\nwhile n < 10:\n    n *= 2\nprint(n)",
        "12\n",
    ),
    (
        "def + default",
        "def f(a, b=2, *rest, **kw):\n    return a + b + sum(rest) + len(kw)\nprint(f(1), f(1, 1, 1, 1, x=1))",
        "3 5\n",
    ),
    (
        "try/except",
        "try:\n    {}['missing']\nexcept KeyError as e:\n    print('caught', repr(e))\nfinally:\n    print('done')",
        "caught KeyError('missing')\ndone\n",
    ),
    (
        "dict/list/set",
        "d = {'a': [1, 2]}\nd.setdefault('b', []).append(3)\nprint(d, sorted({3, 1, 2}), len(d))",
        "{'a': [1, 2], 'b': [3]} [1, 2, 3] 2\n",
    ),
    (
        "import re",
        "import re\nprint(re.findall(r'c(\\d+)', 'c12 and c40'), re.sub(r'\\s+', ' ', 'a   b'))",
        "['12', '40'] a b\n",
    ),
    (
        "import json",
        "import json\nd = json.loads('{\"a\": [1, 2.5, null]}')\nprint(d['a'], json.dumps({'k': True}))",
        "[1, 2.5, None] {\"k\": true}\n",
    ),
    (
        "builtins",
        "xs = [3, 1, 2]\nprint(len(xs), sorted(xs, reverse=True), sum(xs), list(enumerate('ab')), list(zip(xs, 'abc')))",
        "3 [3, 2, 1] 6 [(0, 'a'), (1, 'b')] [(3, 'a'), (1, 'b'), (2, 'c')]\n",
    ),
    (
        "class with methods",
        "class A:\n    def __init__(self, n):\n        self.n = n\n    def twice(self):\n        return self.n * 2\nprint(A(4).twice())",
        "8\n",
    ),
    (
        "string methods",
        "print('a,b,,c'.split(','), ' x '.strip(), 'abc'.upper(), '-'.join(['1', '2']), 'hello'.find('l'))",
        "['a', 'b', '', 'c'] x ABC 1-2 2\n",
    ),
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_models_write_runs_like_cpython() {
    let mut failures = Vec::new();
    for (name, code, want) in COVERAGE {
        let mut repl = Repl::new(limits());
        let (out, err, _) = run(&mut repl, code).await;
        if out != *want || err.is_some() {
            failures.push(format!("{name}: got {out:?} err {err:?}, want {want:?}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn variables_persist_and_errors_keep_earlier_assignments() {
    let mut repl = Repl::new(limits());
    run(&mut repl, "a = 1\ndef inc(x):\n    return x + 1").await;
    let (_, err, _) = run(&mut repl, "b = inc(a)\nraise ValueError('boom')\nc = 3").await;
    let err = err.unwrap();
    assert!(err.contains("ValueError: boom"), "{err}");
    assert!(err.contains("Traceback"), "{err}");
    let (out, err, _) = run(&mut repl, "print(a, b)").await;
    assert_eq!((out.as_str(), err), ("1 2\n", None));
    let (_, err, _) = run(&mut repl, "print(c)").await;
    assert!(err.unwrap().contains("NameError"));
}

/// Escape attempts: each must be refused or stopped with a readable error, and the
/// next block must still run.
const ESCAPES: &[(&str, &str, &str)] = &[
    ("open a file", "open('/etc/passwd').read()", "Error"),
    (
        "pathlib read",
        "from pathlib import Path\nPath('/etc/passwd').read_text()",
        "PermissionError",
    ),
    (
        "os via __import__",
        "__import__('os').system('ls')",
        "Error",
    ),
    (
        "os.getenv",
        "import os\nprint(os.getenv('HOME'))",
        "PermissionError",
    ),
    (
        "os.environ",
        "import os\nprint(os.environ)",
        "PermissionError",
    ),
    (
        "subprocess",
        "import subprocess\nsubprocess.run(['ls'])",
        "ModuleNotFoundError",
    ),
    (
        "socket",
        "import socket\nsocket.create_connection(('127.0.0.1', 80))",
        "ModuleNotFoundError",
    ),
    (
        "urllib",
        "import urllib.request\nurllib.request.urlopen('http://127.0.0.1/')",
        "ModuleNotFoundError",
    ),
    (
        "clock",
        "import time\nprint(time.time())",
        "PermissionError",
    ),
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn escape_attempts_are_refused_and_the_repl_stays_usable() {
    let mut repl = Repl::new(limits());
    run(&mut repl, "marker = 41").await;
    let mut failures = Vec::new();
    for (name, code, want) in ESCAPES {
        let (out, err, _) = run(&mut repl, code).await;
        match err {
            Some(e) if e.contains(want) => {}
            other => failures.push(format!(
                "{name}: want an error containing {want:?}, got err {other:?} out {out:?}"
            )),
        }
        let (out, err, _) = run(&mut repl, "print(marker + 1)").await;
        if out != "42\n" || err.is_some() {
            failures.push(format!(
                "{name}: REPL not usable afterwards: {out:?} {err:?}"
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn limits_stop_the_block_and_the_repl_stays_usable() {
    let mut repl = Repl::new(limits());
    run(&mut repl, "keep = 'kept'").await;
    let cases: &[(&str, &str, LimitHit)] = &[
        ("infinite loop", "while True:\n    pass", LimitHit::Time),
        ("allocate gigabytes", "s = 'a' * 10**10", LimitHit::Memory),
        (
            "deep recursion",
            "def f(n):\n    return f(n + 1)\nf(0)",
            LimitHit::Recursion,
        ),
        (
            "print 100 MB",
            "chunk = 'x' * 1000000\nfor i in range(100):\n    print(chunk)",
            LimitHit::Memory,
        ),
    ];
    for (name, code, want) in cases {
        let r = repl.run(code, &rlm_core::NoHost).await;
        assert!(
            r.error.is_some(),
            "{name}: no error; output {:?}",
            r.output.len()
        );
        assert_eq!(r.limit, Some(*want), "{name}: {:?}", r.error);
        assert!(r.output.len() < 10_000, "{name}: output not cut");
        let (out, err, _) = run(&mut repl, "print(keep)").await;
        assert_eq!(
            (out.as_str(), err),
            ("kept\n", None),
            "{name}: REPL not usable afterwards"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn long_output_keeps_head_and_tail_and_says_what_was_cut() {
    let mut repl = Repl::new(limits());
    let r = repl
        .run("for i in range(2000):\n    print('line', i)", &NoHost)
        .await;
    assert!(r.cut_chars > 0);
    assert!(
        r.output.starts_with("line 0\nline 1\n"),
        "{}",
        &r.output[..40]
    );
    assert!(r.output.trim_end().ends_with("line 1999"));
    assert!(r.output.contains("output truncated"), "cut not announced");
    assert!(r.output.chars().count() < 2_200);
}
