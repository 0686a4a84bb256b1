//! The server binary as its own process on a free loopback port, with `--auth dev`; killed
//! when dropped. `AGORA_BIN` names the server binary (`make test` sets it to the test build's), else this build's.

use std::ffi::OsString;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use serde_json::Value;

use super::Socket;

pub struct Binary {
    pub child: Child,
    pub addr: String,
}

impl Binary {
    /// Starts it with `args` after `--auth dev --addr …`, and waits until `/ready` answers.
    pub async fn start<I, S>(args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<OsString>,
    {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let addr = format!("127.0.0.1:{port}");
        let binary = std::env::var_os("AGORA_BIN")
            .filter(|path| !path.is_empty())
            .unwrap_or_else(|| env!("CARGO_BIN_EXE_agora-hai").into());
        let mut child = Command::new(binary)
            .args(["--auth", "dev", "--addr", &addr])
            .args(args.into_iter().map(Into::into))
            .env("RUST_LOG", "warn")
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap();
        for _ in 0..300 {
            if reqwest::get(format!("http://{addr}/ready"))
                .await
                .is_ok_and(|r| r.status().is_success())
            {
                return Self { child, addr };
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        let _ = child.kill();
        let _ = child.wait();
        panic!("the binary did not come up on {addr}");
    }

    pub async fn socket(&self) -> Socket {
        Socket::connect(&format!("ws://{}/ws", self.addr)).await
    }

    /// A GET's JSON body.
    pub async fn get(&self, path: &str) -> Value {
        reqwest::get(format!("http://{}{path}", self.addr))
            .await
            .unwrap()
            .json()
            .await
            .unwrap()
    }

    /// Kills it with SIGKILL: no chance to flush or say goodbye.
    pub fn kill(&mut self) {
        self.child.kill().unwrap();
        self.child.wait().unwrap();
    }
}

impl Drop for Binary {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
