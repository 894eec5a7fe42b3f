//! For tests: moto's S3-compatible server (from PyPI, installed by `./scripts/test.sh` into
//! `target/s3-venv`) on a free port, and objects put into it as any client would.

use std::path::PathBuf;
use std::process::{Child, Command};

/// moto's S3 server, stopped when dropped.
pub struct S3Server {
    child: Child,
    pub port: u16,
}

impl S3Server {
    /// Starts it; a missing server fails the test, naming how to install it.
    pub fn start() -> S3Server {
        let moto =
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../target/s3-venv/bin/moto_server");
        assert!(
            moto.exists(),
            "moto's S3 server is missing ({}): run ./scripts/test.sh, which installs it",
            moto.display()
        );
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let mut child = Command::new(&moto)
            .args(["-H", "127.0.0.1", "-p", &port.to_string()])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        for _ in 0..100 {
            if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
                return S3Server { child, port };
            }
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        let _ = child.kill();
        let _ = child.wait();
        panic!("moto's S3 server did not start on port {port}");
    }

    pub fn endpoint(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// A plain HTTP PUT (moto accepts unsigned requests) of `body` at `path` (`/bucket` makes
    /// the bucket, `/bucket/key` an object).
    pub fn put(&self, path: &str, body: &[u8]) {
        use std::io::Write as _;
        let mut curl = Command::new("curl")
            .args([
                "-fsS",
                "-X",
                "PUT",
                "-H",
                "content-type: application/octet-stream",
                "--data-binary",
                "@-",
            ])
            .arg(format!("{}{path}", self.endpoint()))
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("curl runs");
        curl.stdin.take().expect("a pipe").write_all(body).unwrap();
        let out = curl.wait_with_output().unwrap();
        assert!(out.status.success(), "PUT {path}: {}", String::from_utf8_lossy(&out.stderr));
    }
}

impl Drop for S3Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
