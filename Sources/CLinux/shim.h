// Linux calls that Swift's Glibc module leaves out: epoll, eventfd, accept4,
// gettid, prctl. Header only; nothing to link beyond the C library.
//
// No _GNU_SOURCE here and no headers that the Glibc module owns
// (sys/socket.h, unistd.h): a different feature macro would give types like
// fd_set a second, conflicting definition. accept4 and gettid are declared
// under names of our own, bound to the C library's symbols.
#ifndef PARLOR_CLINUX_SHIM_H
#define PARLOR_CLINUX_SHIM_H
#include <stddef.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>

extern int parlor_accept4_symbol(int fd, void *address, void *length, int flags) __asm__("accept4");
extern int parlor_gettid_symbol(void) __asm__("gettid");
extern int parlor_prctl_symbol(int option, ...) __asm__("prctl");

/// sizeof(struct epoll_event): packed (12) on x86-64, 16 elsewhere.
static inline int parlor_epoll_event_size(void) { return (int)sizeof(struct epoll_event); }
/// offsetof(struct epoll_event, data).
static inline int parlor_epoll_data_offset(void) { return (int)offsetof(struct epoll_event, data); }
static inline int parlor_accept4(int fd, int flags) { return parlor_accept4_symbol(fd, NULL, NULL, flags); }
static inline int parlor_gettid(void) { return parlor_gettid_symbol(); }
/// Names the calling thread (PR_SET_NAME, at most 15 bytes kept), as `ps -L` and perf show it.
static inline int parlor_name_this_thread(const char *name) { return parlor_prctl_symbol(15, (unsigned long)name, 0UL, 0UL, 0UL); }
#endif
