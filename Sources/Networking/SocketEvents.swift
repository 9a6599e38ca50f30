import CEventPoll
import Foundation

/// The descriptors the curl thread waits on: the sockets libcurl names, and the thread's wake
/// pipe. On Linux an epoll set, whose wait costs only what is ready, where `poll` looks at
/// every socket each time (a flood of replies keeps some thirty connections open); `poll`
/// elsewhere. Used on the curl thread only.
final class SocketEvents {
    /// A socket that is ready, and for what.
    struct Ready {
        var socket: Int32
        var readable: Bool
        var writable: Bool
        var failed: Bool
    }

    /// What a wait ended with, besides the ready sockets.
    struct Outcome {
        /// The wake pipe has something to read.
        var woken = false
        /// The wait itself failed (its `errno` tells why).
        var failed = false
    }

    private let wakeFD: Int32
    /// The sockets watched, and whether each is watched for writing as well as reading.
    private var watched: [Int32: (readable: Bool, writable: Bool)] = [:]
    #if os(Linux)
    private let epoll: Int32
    /// Sockets libcurl stopped waiting on that are still in the epoll set: libcurl stops
    /// waiting on a connection after each request and waits on it again for the next, and
    /// leaving it in the set spares a system call each time. Such a socket leaves the set
    /// when it next turns out ready (an idle connection the server closed, say).
    private var parked: Set<Int32> = []
    private var readyFDs = [Int32](repeating: 0, count: 64)
    private var readyEvents = [UInt32](repeating: 0, count: 64)
    #else
    private var pollSet: [pollfd] = []
    #endif

    /// Watches `wakeFD` for reading from the start; nil if the kernel gives no epoll set.
    init?(wakeFD: Int32) {
        self.wakeFD = wakeFD
        #if os(Linux)
        epoll = ceventpoll_create()
        guard epoll >= 0 else { return nil }
        guard ceventpoll_watch(epoll, wakeFD, ceventpoll_in, 0) == 0 else {
            close(epoll)
            return nil
        }
        #endif
    }

    deinit {
        #if os(Linux)
        close(epoll)
        #endif
    }

    /// Watches `socket` for what libcurl now waits for on it.
    func watch(_ socket: Int32, readable: Bool, writable: Bool) {
        #if os(Linux)
        let events = (readable ? ceventpoll_in : 0) | (writable ? ceventpoll_out : 0)
        let inSet = watched[socket] != nil || parked.remove(socket) != nil
        // A socket closed leaves the set by itself, and its number may come back: whichever
        // way the set is asked first, the other way is right if it refuses.
        if ceventpoll_watch(epoll, socket, events, inSet ? 1 : 0) != 0 {
            _ = ceventpoll_watch(epoll, socket, events, inSet ? 0 : 1)
        }
        #endif
        watched[socket] = (readable, writable)
    }

    /// Stops watching `socket`: it is no longer reported ready.
    func forget(_ socket: Int32) {
        guard watched.removeValue(forKey: socket) != nil else { return }
        #if os(Linux)
        parked.insert(socket)
        #endif
    }

    /// Waits until a descriptor is ready or `timeout` milliseconds pass, and appends the ready
    /// sockets to `ready`.
    func wait(timeout: Int32, into ready: inout [Ready]) -> Outcome {
        var outcome = Outcome()
        #if os(Linux)
        let count = ceventpoll_wait(epoll, &readyFDs, &readyEvents, Int32(readyFDs.count), timeout)
        guard count >= 0 else {
            outcome.failed = true
            return outcome
        }
        for index in 0..<Int(count) {
            let (fd, events) = (readyFDs[index], readyEvents[index])
            if fd == wakeFD {
                outcome.woken = true
                continue
            }
            if parked.remove(fd) != nil {
                _ = ceventpoll_forget(epoll, fd)
                continue
            }
            ready.append(Ready(
                socket: fd, readable: events & (ceventpoll_in | ceventpoll_hangup) != 0, writable: events & ceventpoll_out != 0,
                failed: events & ceventpoll_error != 0
            ))
        }
        #else
        pollSet.removeAll(keepingCapacity: true)
        pollSet.append(pollfd(fd: wakeFD, events: Int16(POLLIN), revents: 0))
        for (socket, interest) in watched {
            let events = (interest.readable ? Int16(POLLIN) : 0) | (interest.writable ? Int16(POLLOUT) : 0)
            pollSet.append(pollfd(fd: socket, events: events, revents: 0))
        }
        guard poll(&pollSet, nfds_t(pollSet.count), timeout) >= 0 else {
            outcome.failed = true
            return outcome
        }
        outcome.woken = pollSet[0].revents != 0
        for entry in pollSet.dropFirst() where entry.revents != 0 {
            ready.append(Ready(
                socket: entry.fd, readable: entry.revents & Int16(POLLIN | POLLHUP) != 0, writable: entry.revents & Int16(POLLOUT) != 0,
                failed: entry.revents & Int16(POLLERR | POLLNVAL) != 0
            ))
        }
        #endif
        return outcome
    }
}
