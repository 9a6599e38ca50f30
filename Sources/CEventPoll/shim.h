#ifndef CEVENTPOLL_SHIM_H
#define CEVENTPOLL_SHIM_H

// Linux's epoll for the curl thread's wait. `struct epoll_event` is packed on x86-64, which
// Swift does not import well, so these wrappers take and give plain values.
#if defined(__linux__)
#include <sys/epoll.h>
#include <stdint.h>

#define CEVENTPOLL_AVAILABLE 1

static const uint32_t ceventpoll_in = EPOLLIN;
static const uint32_t ceventpoll_out = EPOLLOUT;
static const uint32_t ceventpoll_error = EPOLLERR;
static const uint32_t ceventpoll_hangup = EPOLLHUP;

static inline int ceventpoll_create(void) { return epoll_create1(EPOLL_CLOEXEC); }

// Adds `fd`, or changes what it is watched for if it is watched already.
static inline int ceventpoll_watch(int epoll, int fd, uint32_t events, int added) {
    struct epoll_event event = { .events = events, .data = { .fd = fd } };
    return epoll_ctl(epoll, added ? EPOLL_CTL_MOD : EPOLL_CTL_ADD, fd, &event);
}

static inline int ceventpoll_forget(int epoll, int fd) {
    struct epoll_event event = { 0 };
    return epoll_ctl(epoll, EPOLL_CTL_DEL, fd, &event);
}

// Waits up to `timeout` ms for at most `capacity` ready descriptors; fills `fds` and `events`.
static inline int ceventpoll_wait(int epoll, int *fds, uint32_t *events, int capacity, int timeout) {
    struct epoll_event ready[64];
    if (capacity > 64) capacity = 64;
    int count = epoll_wait(epoll, ready, capacity, timeout);
    for (int i = 0; i < count; i++) {
        fds[i] = ready[i].data.fd;
        events[i] = ready[i].events;
    }
    return count;
}
#endif

#endif
