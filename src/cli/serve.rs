//! `paperjudge serve`: the web app on an address, refused where it would be open to others.

use std::net::{SocketAddr, TcpListener, ToSocketAddrs};

use super::arguments::ServeArgs;
use super::error::CliError;
use super::passwords::{password, PASSWORD_VARIABLE};
use crate::study::Study;
use crate::web::{self};

pub(super) async fn serve(study: &Study, args: ServeArgs) -> Result<(), CliError> {
    let password = password(
        args.password_file.as_deref(),
        std::env::var_os(PASSWORD_VARIABLE),
    )?;
    let addr = &args.addr;
    let addresses: Vec<SocketAddr> = addr
        .to_socket_addrs()
        .map_err(|error| CliError::Usage(format!("cannot listen on {addr}: {error}")))?
        .collect();
    let public = addresses.iter().find(|address| !address.ip().is_loopback());
    // Raters sign in with passwords of their own: they protect the study as the owner's does.
    let signs_in = password.is_some() || study.raters().has_active().await?;
    match (public, signs_in) {
        (Some(public), false) => {
            return Err(CliError::Usage(format!(
                "refusing to serve on {public} without a password: other machines can reach \
                 that address. Set {PASSWORD_VARIABLE} or pass --password-file FILE, add \
                 raters (`paperjudge raters add`), or serve on 127.0.0.1 (the default)"
            )))
        }
        (Some(_), true) if !args.behind_tls => tracing::warn!(
            "the password and the session cookie cross the network unencrypted: serve \
             paperjudge behind a TLS proxy and pass --behind-tls"
        ),
        _ => {}
    }
    match (args.hosts.first(), public) {
        (Some(host), _) if !signs_in && !args.behind_tls => {
            return Err(CliError::Usage(format!(
                "--host {host} needs a password (or raters) or --behind-tls: without either, paperjudge \
                 answers only loopback names (localhost, 127.0.0.1, [::1]), so that no other \
                 site can reach the study through DNS rebinding"
            )))
        }
        (None, _) if public.is_some() || args.behind_tls => tracing::warn!(
            "no --host given: only localhost, 127.0.0.1 and [::1] are answered, and a browser \
             that reaches paperjudge by another name (from another machine, or through the \
             TLS proxy) gets 421 until that name is given with --host NAME"
        ),
        _ => {}
    }
    let swept = study.import().sweep_upload_leftovers().await?;
    if swept > 0 {
        tracing::info!("removed {swept} temporary files of uploads that no server runs any more");
    }
    if args.demo {
        if let Some(summary) = study.import().load_demo_if_empty().await? {
            tracing::info!("loaded the demo study: {summary}");
        }
    }
    let listener = TcpListener::bind(&addresses[..])
        .map_err(|error| CliError::Usage(format!("cannot listen on {addr}: {error}")))?;
    let address = listener
        .local_addr()
        .map_err(|error| CliError::internal("cannot read the listening address", error))?;
    crate::tell!("paperjudge is serving the study on http://{address}/");
    let settings = web::Access {
        beyond_loopback: public.is_some(),
        password,
        behind_tls: args.behind_tls,
        trusted_proxies: args.trusted_proxy,
        hosts: args.hosts,
        max_upload: args.max_upload,
        upload_idle: None,
    };
    let _file_size_limit = survive_file_size_limit()?;
    // Runs until SIGTERM (after the requests in flight are answered) or SIGINT.
    web::run(listener, study.clone(), settings)
        .map_err(|error| CliError::internal("cannot start the web server", error))?
        .await
        .map_err(|error| CliError::internal("the web server failed", error))?;
    tracing::info!("the server has stopped");
    Ok(())
}

/// Handles SIGXFSZ for as long as the answer is kept. A write past the size a file may have
/// (`ulimit -f`) sends it, and by default it kills the process, the server in the middle of an
/// upload with the upload's temporary file left behind; handled, the write fails (EFBIG), which
/// an upload answers as a full disk (507), removing its file.
#[cfg(unix)]
pub(super) fn survive_file_size_limit() -> Result<tokio::signal::unix::Signal, CliError> {
    use tokio::signal::unix::{signal, SignalKind};
    signal(SignalKind::from_raw(libc::SIGXFSZ))
        .map_err(|error| CliError::internal("cannot handle SIGXFSZ", error))
}

#[cfg(not(unix))]
pub(super) fn survive_file_size_limit() -> Result<(), CliError> {
    Ok(())
}
