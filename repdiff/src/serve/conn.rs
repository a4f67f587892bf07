//! The sockets under tiny_http, which hands us none: Nagle off on the
//! listener (inherited by every accepted connection), and a read and write
//! timeout on the connection of a request whose body we are about to read.
//!
//! Why both: tiny_http writes an answer through a 1 KiB buffer, so an
//! answer longer than that leaves in several segments, and with Nagle on
//! the second waits for the client's delayed ACK of the first: every
//! request on a kept-alive connection cost 40 ms more than its work
//! (measured: 44 ms against 0.8 ms). And tiny_http reads the headers (and a
//! body up to 1 KiB) on a thread of its own but leaves a longer body to the
//! handler thread, with no timeout: a client that stops sending would hold
//! that thread for good. A timeout on the listener is no way out, since
//! its accepts would time out too and tiny_http stops accepting on the
//! first accept error.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::os::fd::{AsRawFd, RawFd};
use std::time::Duration;

/// The server on `bind:port`, Nagle off for every connection.
pub fn listen(bind: &str, port: u16) -> std::io::Result<tiny_http::Server> {
    let listener = std::net::TcpListener::bind((bind, port))?;
    let on: libc::c_int = 1;
    set_option(
        listener.as_raw_fd(),
        libc::IPPROTO_TCP,
        libc::TCP_NODELAY,
        &on,
    )
    .map_err(|e| std::io::Error::new(e.kind(), format!("TCP_NODELAY: {e}")))?;
    tiny_http::Server::from_listener(listener, None).map_err(std::io::Error::other)
}

/// Give the connection from `peer` to our port `local` a read and write
/// timeout of `idle`. It is found among this process's descriptors by its
/// two addresses, which name one TCP connection. False when none matches
/// (the client has gone).
pub fn time_out(local: SocketAddr, peer: SocketAddr, idle: Duration) -> bool {
    let Ok(dir) = std::fs::read_dir("/proc/self/fd") else {
        return false;
    };
    let limit = libc::timeval {
        tv_sec: idle.as_secs().min(i32::MAX as u64) as libc::time_t,
        tv_usec: idle.subsec_micros() as libc::suseconds_t,
    };
    for entry in dir.flatten() {
        let Some(fd) = entry
            .file_name()
            .to_str()
            .and_then(|s| s.parse::<RawFd>().ok())
        else {
            continue;
        };
        let ends = address(fd, libc::getpeername).zip(address(fd, libc::getsockname));
        if ends.is_some_and(|(p, l)| p == peer && l.port() == local.port()) {
            return set_option(fd, libc::SOL_SOCKET, libc::SO_RCVTIMEO, &limit).is_ok()
                && set_option(fd, libc::SOL_SOCKET, libc::SO_SNDTIMEO, &limit).is_ok();
        }
    }
    false
}

type NameFn =
    unsafe extern "C" fn(libc::c_int, *mut libc::sockaddr, *mut libc::socklen_t) -> libc::c_int;

/// One end of socket `fd` (`getpeername` or `getsockname`), if it is an
/// IPv4 or IPv6 socket.
fn address(fd: RawFd, name: NameFn) -> Option<SocketAddr> {
    // SAFETY: sockaddr_storage is plain data; zeroed is a valid value.
    let mut storage: libc::sockaddr_storage = unsafe { std::mem::zeroed() };
    let mut len = size_of::<libc::sockaddr_storage>() as libc::socklen_t;
    // SAFETY: the buffer and its length are valid for the call; a
    // descriptor that is not a socket makes it fail, nothing more.
    let got = unsafe {
        name(
            fd,
            (&mut storage as *mut libc::sockaddr_storage).cast(),
            &mut len,
        )
    };
    if got != 0 {
        return None;
    }
    match storage.ss_family as libc::c_int {
        libc::AF_INET => {
            // SAFETY: the family says the storage holds a sockaddr_in.
            let a: libc::sockaddr_in =
                unsafe { std::ptr::read((&storage as *const libc::sockaddr_storage).cast()) };
            let ip = Ipv4Addr::from(u32::from_be(a.sin_addr.s_addr));
            Some(SocketAddr::new(IpAddr::V4(ip), u16::from_be(a.sin_port)))
        }
        libc::AF_INET6 => {
            // SAFETY: the family says the storage holds a sockaddr_in6.
            let a: libc::sockaddr_in6 =
                unsafe { std::ptr::read((&storage as *const libc::sockaddr_storage).cast()) };
            let ip = Ipv6Addr::from(a.sin6_addr.s6_addr);
            Some(SocketAddr::new(IpAddr::V6(ip), u16::from_be(a.sin6_port)))
        }
        _ => None,
    }
}

fn set_option<T>(
    fd: RawFd,
    level: libc::c_int,
    name: libc::c_int,
    value: &T,
) -> std::io::Result<()> {
    // SAFETY: a descriptor, and a value of the size the call is told.
    let set = unsafe {
        libc::setsockopt(
            fd,
            level,
            name,
            (value as *const T).cast(),
            size_of::<T>() as libc::socklen_t,
        )
    };
    if set == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}
