//! The frame reader on malformed input (the end-to-end protocol tests drive the
//! binary: `isa-cli/tests/lsp.rs`).

use super::*;

fn frames(input: &[u8]) -> Vec<Result<String, (Value, i32)>> {
    let mut r = std::io::BufReader::new(input);
    let mut out = Vec::new();
    while let Ok(Some(f)) = read_frame(&mut r) {
        out.push(match f {
            Incoming::Message(m) => Ok(match m {
                Message::Request(r) => r.method,
                Message::Notification(n) => n.method,
                Message::Response(_) => "response".into(),
            }),
            Incoming::Bad { id, code, .. } => Err((id, code as i32)),
        });
    }
    out
}

fn frame(body: &str) -> String {
    format!("Content-Length: {}\r\n\r\n{body}", body.len())
}

#[test]
fn bad_frames_are_answered_and_the_stream_stays_in_step() {
    let ok = frame(r#"{"jsonrpc":"2.0","method":"initialized","params":{}}"#);
    let mut input = String::new();
    input.push_str(&frame("{not json"));
    input.push_str(&ok);
    input.push_str(&frame(r#"{"jsonrpc":"2.0","id":7,"params":1}"#));
    input.push_str("Content-Length: abc\r\n\r\n");
    input.push_str(&ok);
    input.push_str("X-Nothing: 1\r\n\r\n");
    input.push_str(&frame("[1,2]"));
    // Longer than the limit: skipped unread (here: cut short, which ends the input).
    input.push_str(&format!("Content-Length: {}\r\n\r\n{{}}", MAX_FRAME + 1));
    let got = frames(input.as_bytes());
    let parse = ErrorCode::ParseError as i32;
    let invalid = ErrorCode::InvalidRequest as i32;
    assert_eq!(
        got,
        vec![
            Err((Value::Null, parse)),
            Ok("initialized".into()),
            Err((json!(7), invalid)),
            Err((Value::Null, parse)),
            Ok("initialized".into()),
            Err((Value::Null, parse)),
            Err((Value::Null, invalid)),
        ]
    );
}

#[test]
fn a_frame_cut_short_ends_the_input() {
    assert!(frames(b"Content-Length: 100\r\n\r\n{\"a\":").is_empty());
    assert!(frames(b"").is_empty());
    assert!(frames(b"Content-Length: 5\r\n").is_empty());
}
