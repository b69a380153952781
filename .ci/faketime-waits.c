/*
 * Loaded ahead of libfaketime by .ci/at-utc: its wait calls go straight to libc.
 *
 * libfaketime wraps epoll_wait, poll and select to scale their timeouts, and while inside them it
 * answers the real time, so a signal handler that runs during a wait reads the real clock. A
 * PostgreSQL backend idles in epoll_wait, and its timeout handler (SIGALRM) compares the real time
 * with a deadline it took on the faked one: with the clock moved forward, idle_in_transaction_
 * session_timeout, lock and statement timeouts never fire; moved back, they fire at once. We scale
 * nothing, so these waits need no wrapping, and the handler then reads the faked clock like the rest.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <sys/epoll.h>
#include <sys/select.h>

static void *libc(void) {
  static void *handle;
  if (handle == NULL) handle = dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD);
  return handle;
}

/* Each wrapper looks the libc function up once and calls it. */
#define FROM_LIBC(name, ...)                          \
  typedef int (*name##_fn)(__VA_ARGS__);              \
  static name##_fn real;                              \
  if (real == NULL) real = (name##_fn)dlsym(libc(), #name)

int epoll_wait(int fd, struct epoll_event *events, int max, int timeout) {
  FROM_LIBC(epoll_wait, int, struct epoll_event *, int, int);
  return real(fd, events, max, timeout);
}

int epoll_pwait(int fd, struct epoll_event *events, int max, int timeout, const sigset_t *mask) {
  FROM_LIBC(epoll_pwait, int, struct epoll_event *, int, int, const sigset_t *);
  return real(fd, events, max, timeout, mask);
}

int poll(struct pollfd *fds, nfds_t count, int timeout) {
  FROM_LIBC(poll, struct pollfd *, nfds_t, int);
  return real(fds, count, timeout);
}

int ppoll(struct pollfd *fds, nfds_t count, const struct timespec *timeout, const sigset_t *mask) {
  FROM_LIBC(ppoll, struct pollfd *, nfds_t, const struct timespec *, const sigset_t *);
  return real(fds, count, timeout, mask);
}

int select(int count, fd_set *reads, fd_set *writes, fd_set *errors, struct timeval *timeout) {
  FROM_LIBC(select, int, fd_set *, fd_set *, fd_set *, struct timeval *);
  return real(count, reads, writes, errors, timeout);
}

int pselect(int count, fd_set *reads, fd_set *writes, fd_set *errors, const struct timespec *timeout, const sigset_t *mask) {
  FROM_LIBC(pselect, int, fd_set *, fd_set *, fd_set *, const struct timespec *, const sigset_t *);
  return real(count, reads, writes, errors, timeout, mask);
}
