// POSIX semaphores with a wait timed on CLOCK_MONOTONIC (glibc 2.30+): Swift's Glibc module leaves
// sem_clockwait out (glibc declares it for _GNU_SOURCE only), so it is declared here.
#include <semaphore.h>
#include <time.h>

int sem_clockwait(sem_t *sem, clockid_t clock, const struct timespec *abstime);
