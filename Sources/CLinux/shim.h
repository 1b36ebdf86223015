// Linux calls that Swift's Glibc module leaves out: epoll, eventfd, accept4,
// gettid. Header only; nothing to link beyond the C library.
#ifndef PARLOR_CLINUX_SHIM_H
#define PARLOR_CLINUX_SHIM_H
#define _GNU_SOURCE 1
#include <stddef.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

/// sizeof(struct epoll_event): packed (12) on x86-64, 16 elsewhere.
static inline int parlor_epoll_event_size(void) { return (int)sizeof(struct epoll_event); }
/// offsetof(struct epoll_event, data).
static inline int parlor_epoll_data_offset(void) { return (int)offsetof(struct epoll_event, data); }
static inline int parlor_accept4(int fd, int flags) { return accept4(fd, NULL, NULL, flags); }
static inline int parlor_gettid(void) { return (int)gettid(); }
#endif
