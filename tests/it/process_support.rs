//! The real binary as a separate process: commands that run to the end, and a server that
//! runs until the test stops it (with SIGTERM or SIGINT, as a service manager or Ctrl-C
//! would) or kills it (with SIGKILL, as a crash or the OOM killer would).

use std::io::{BufRead, BufReader, Read};
use std::net::SocketAddr;
use std::path::Path;
use std::process::{Child, Command, ExitStatus, Output, Stdio};
use std::sync::{mpsc, Arc, Mutex};
use std::time::Duration;

/// What the server prints once it listens, followed by its address.
const SERVING: &str = "paperjudge is serving the study on http://";

/// Runs `paperjudge --db DB ARGS...` to the end, with `env` set and no password inherited.
pub fn paperjudge(db: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    command(db, args, env).output().expect("the binary runs")
}

fn command(db: &Path, args: &[&str], env: &[(&str, &str)]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_paperjudge"));
    command
        .arg("--db")
        .arg(db)
        .args(args)
        .env("PAPERJUDGE_LOG", "warn")
        .env_remove("PAPERJUDGE_PASSWORD")
        .envs(env.iter().copied());
    command
}

/// Runs `paperjudge --db DB ARGS...` as [`paperjudge`] does, for a command that must end by
/// itself, such as a `serve` that has to refuse to start: fails the test if it has not ended
/// within a minute, where [`paperjudge`] would wait for ever on a server that started.
pub fn paperjudge_ending(db: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut child = command(db, args, env)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary starts");
    // Read to the end on threads of their own, so that the child never blocks on a full pipe.
    let read_all = |pipe: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            if let Some(mut pipe) = pipe {
                pipe.read_to_end(&mut bytes).expect("the pipe reads");
            }
            bytes
        })
    };
    let stdout = read_all(child.stdout.take().map(|pipe| Box::new(pipe) as _));
    let stderr = read_all(child.stderr.take().map(|pipe| Box::new(pipe) as _));
    let status = wait_or_fail(&mut child, args, "did not end");
    Output {
        status,
        stdout: stdout.join().expect("stdout is read"),
        stderr: stderr.join().expect("stderr is read"),
    }
}

/// Runs `paperjudge --db DB ARGS...` with its standard error a pipe that nobody reads, closed
/// as soon as the process starts (as `2>&1 | head` closes it); answers how it ended, or fails
/// the test if it has not ended within a minute.
pub fn paperjudge_with_stderr_closed(db: &Path, args: &[&str], env: &[(&str, &str)]) -> ExitStatus {
    let mut child = command(db, args, env)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary starts");
    drop(child.stderr.take());
    wait_or_fail(&mut child, args, "hung with its stderr closed")
}

/// How `child` ended; kills it and fails the test, saying that it `failed_how`, if it has not
/// ended within a minute.
fn wait_or_fail(child: &mut Child, args: &[&str], failed_how: &str) -> ExitStatus {
    for _ in 0..600 {
        if let Some(status) = child.try_wait().expect("the status") {
            return status;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let _ = child.kill();
    let _ = child.wait();
    panic!("paperjudge {args:?} {failed_how} within a minute");
}

/// Asserts that a command succeeded and answers its standard output.
pub fn succeeded(output: &Output) -> String {
    assert!(
        output.status.success(),
        "failed with {}: {}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout.clone()).expect("UTF-8 output")
}

/// A command's standard error, as text.
pub fn stderr(output: &Output) -> String {
    String::from_utf8(output.stderr.clone()).expect("UTF-8 errors")
}

/// A running `paperjudge serve`.
pub struct ServerProcess {
    child: Child,
    /// `http://127.0.0.1:PORT`, whatever address the server was given.
    pub address: String,
    /// What the server wrote to stderr after it started listening.
    log: Arc<Mutex<Vec<String>>>,
}

impl ServerProcess {
    /// Starts `paperjudge --db DB serve ARGS...` and waits until it listens.
    pub fn start(db: &Path, args: &[&str], env: &[(&str, &str)]) -> ServerProcess {
        ServerProcess::start_command(command(db, &[&["serve"], args].concat(), env))
    }

    /// [`ServerProcess::start`], with no file it writes allowed to grow past `kib` KiB
    /// (`ulimit -f`): a write past it sends SIGXFSZ, which the server must survive, and fails
    /// as on a full disk.
    pub fn start_with_file_size_limit(db: &Path, kib: u64, args: &[&str]) -> ServerProcess {
        let serve = command(db, &[&["serve"], args].concat(), &[]);
        let mut limited = Command::new("bash");
        limited
            .args(["-c", "ulimit -f \"$0\"; exec \"$@\"", &kib.to_string()])
            .arg(serve.get_program())
            .args(serve.get_args())
            .envs(
                serve
                    .get_envs()
                    .filter_map(|(key, value)| Some((key, value?))),
            )
            .env_remove("PAPERJUDGE_PASSWORD");
        ServerProcess::start_command(limited)
    }

    fn start_command(mut command: Command) -> ServerProcess {
        let mut child = command
            .stderr(Stdio::piped())
            .spawn()
            .expect("the server starts");
        let stderr = child.stderr.take().expect("a piped stderr");
        let (listening, address) = mpsc::channel();
        let log = Arc::new(Mutex::new(Vec::new()));
        let kept = Arc::clone(&log);
        // Reads stderr to its end, so that the server never blocks on a full pipe.
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if let Some(rest) = line.strip_prefix(SERVING) {
                    let _ = listening.send(rest.trim_end_matches('/').to_owned());
                } else {
                    eprintln!("server: {line}");
                    kept.lock().expect("not poisoned").push(line);
                }
            }
        });
        let listening_on: SocketAddr = address
            .recv_timeout(Duration::from_secs(60))
            .expect("the server says where it listens")
            .parse()
            .expect("a socket address");
        let port = listening_on.port();
        ServerProcess {
            child,
            address: format!("http://127.0.0.1:{port}"),
            log,
        }
    }

    /// Everything the server logged so far, one line each.
    pub fn log(&self) -> Vec<String> {
        self.log.lock().expect("not poisoned").clone()
    }

    /// Sends `signal` (`TERM`, `INT`) and waits for the server to exit.
    pub fn stop(&mut self, signal: &str) -> ExitStatus {
        let sent = Command::new("kill")
            .args(["-s", signal, &self.child.id().to_string()])
            .status()
            .expect("kill runs");
        assert!(sent.success(), "SIG{signal} was not sent");
        self.child.wait().expect("the stopped server is reaped")
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.address)
    }

    /// SIGKILL (what `Child::kill` sends on Unix): no shutdown, no flush, no goodbye.
    pub fn kill(&mut self) {
        self.child.kill().expect("the server can be killed");
        self.child.wait().expect("the killed server is reaped");
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            self.kill();
        }
    }
}
