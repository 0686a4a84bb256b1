//! The shipped deployment in front of a test server: Debian's nginx running `deploy/nginx.conf`
//! (only what a loopback test cannot have is changed: plain HTTP on a free port instead of TLS
//! on 443, no port-80 redirect, and the test server as the one upstream), and a server
//! configured with the trusted proxies `deploy/agora-hai.service` sets. Clients reach nginx
//! from different loopback addresses (127.0.0.2, 127.0.0.3, ...), which nginx passes on in
//! `X-Forwarded-For` as it would real clients' addresses.
//!
//! Without nginx the tests fail (never skip): `scripts/setup.sh test` installs it.

use std::net::{IpAddr, SocketAddr};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use super::TempDir;

/// A running nginx; stopped when dropped.
pub struct Nginx {
    pub addr: SocketAddr,
    child: Child,
    dir: TempDir,
}

fn repo_file(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(path)
}

/// The trusted proxies the shipped systemd unit gives the server (none if it sets none).
pub fn shipped_trusted_proxies() -> Vec<IpAddr> {
    let unit = std::fs::read_to_string(repo_file("deploy/agora-hai.service")).unwrap();
    unit.lines()
        .filter_map(|line| {
            line.trim()
                .strip_prefix("Environment=AGORA_TRUSTED_PROXIES=")
        })
        .flat_map(|list| list.split(','))
        .map(|ip| ip.trim().parse().expect("the unit's trusted proxies parse"))
        .collect()
}

/// `deploy/nginx.conf` with the test's upstream and port, without TLS and the redirect.
fn shipped_config(upstream: SocketAddr, listen: SocketAddr) -> String {
    let shipped = std::fs::read_to_string(repo_file("deploy/nginx.conf")).unwrap();
    let mut out = String::new();
    let mut upstream_written = false;
    let mut skipping_redirect = false;
    let mut lines = shipped.lines().peekable();
    while let Some(line) = lines.next() {
        let trimmed = line.trim();
        if trimmed == "server {" && lines.peek().is_some_and(|l| l.trim() == "listen 80;") {
            skipping_redirect = true;
            continue;
        }
        if skipping_redirect {
            skipping_redirect = trimmed != "}";
            continue;
        }
        if trimmed.starts_with("server 127.0.0.1:") {
            if !upstream_written {
                out.push_str(&format!("    server {upstream};\n"));
                upstream_written = true;
            }
            continue;
        }
        if trimmed.starts_with("listen 443") {
            out.push_str(&format!("    listen {listen};\n"));
            continue;
        }
        if trimmed.starts_with("ssl_") {
            continue;
        }
        out.push_str(line);
        out.push('\n');
    }
    assert!(upstream_written, "deploy/nginx.conf has no upstream server");
    assert!(
        out.contains(&format!("listen {listen};")),
        "no `listen 443` in deploy/nginx.conf"
    );
    out
}

impl Nginx {
    /// Starts nginx with the shipped configuration in front of `upstream`.
    pub async fn start(upstream: SocketAddr) -> Self {
        let binary = ["/usr/sbin/nginx", "/usr/bin/nginx"]
            .into_iter()
            .find(|p| Path::new(p).exists())
            .expect(
                "nginx is missing: `scripts/setup.sh test` installs it (apt-get install nginx)",
            );
        let dir = TempDir::new("agora-nginx");
        let listen = {
            let probe = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
            probe.local_addr().unwrap()
        };
        std::fs::write(
            dir.0.join("agora-hai.conf"),
            shipped_config(upstream, listen),
        )
        .unwrap();
        let d = dir.0.display();
        let main = format!(
            "daemon off;\nmaster_process off;\nworker_processes 1;\npid {d}/nginx.pid;\n\
             error_log {d}/error.log warn;\nevents {{ worker_connections 1024; }}\n\
             http {{\n  access_log off;\n  client_body_temp_path {d}/body;\n  proxy_temp_path {d}/proxy;\n\
             fastcgi_temp_path {d}/fastcgi;\n  uwsgi_temp_path {d}/uwsgi;\n  scgi_temp_path {d}/scgi;\n\
             include {d}/agora-hai.conf;\n}}\n"
        );
        std::fs::write(dir.0.join("nginx.conf"), main).unwrap();
        let mut child = Command::new(binary)
            .arg("-p")
            .arg(&dir.0)
            .arg("-e")
            .arg(dir.0.join("error.log"))
            .arg("-c")
            .arg(dir.0.join("nginx.conf"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("nginx starts");
        let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
        loop {
            if let Some(status) = child.try_wait().unwrap() {
                let mut stderr = String::new();
                use std::io::Read;
                child
                    .stderr
                    .take()
                    .unwrap()
                    .read_to_string(&mut stderr)
                    .ok();
                let log = std::fs::read_to_string(dir.0.join("error.log")).unwrap_or_default();
                panic!("nginx exited ({status}): {stderr}\n{log}");
            }
            if tokio::net::TcpStream::connect(listen).await.is_ok() {
                break;
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "nginx did not listen within 10 s"
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        Self {
            addr: listen,
            child,
            dir,
        }
    }

    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    /// A client that reaches nginx from `127.0.0.<last>`: to nginx, another client address.
    pub fn client_from(&self, last: u8) -> reqwest::Client {
        reqwest::Client::builder()
            .local_address(IpAddr::from([127, 0, 0, last]))
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .unwrap()
    }

    /// nginx's error log so far, for a failing assertion's message.
    pub fn error_log(&self) -> String {
        std::fs::read_to_string(self.dir.0.join("error.log")).unwrap_or_default()
    }
}

impl Drop for Nginx {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
