// glibc calls Swift's Glibc module leaves out (glibc declares them for _GNU_SOURCE only), declared here:
// POSIX semaphores with a wait timed on CLOCK_MONOTONIC (glibc 2.30+), and fallocate (space reserved for
// a file before it is written, so a full disk is known before anything is changed).
#include <semaphore.h>
#include <sys/types.h>
#include <time.h>

int sem_clockwait(sem_t *sem, clockid_t clock, const struct timespec *abstime);
int fallocate(int fd, int mode, off_t offset, off_t len);
