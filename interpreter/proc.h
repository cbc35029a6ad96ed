/* proc.h -- child processes (proc.c): workers that die with their parent,
 * the parent's guard against SIGINT/SIGTERM/SIGHUP while it waits for them,
 * and an external program run without a shell. */
#ifndef MENTAT_PROC_H
#define MENTAT_PROC_H

#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

#include "util.h"

/* fflush(NULL), remembering why standard output failed if it did: a flush
 * before a fork or a child program would otherwise lose the cause that
 * main reports at the end (proc_stdout_errno: 0 when none was seen). */
void proc_flush(void);
int proc_stdout_errno(void);

/* fork() for a worker: in the child, the kernel kills it (SIGKILL) as soon as
 * the parent dies, however it dies (kill -9, the OOM killer, a scheduler's
 * time limit), and a parent that died before that was set up makes the child
 * exit at once; the signals the guard catches are back to their defaults.
 * Returns as fork() does. */
pid_t proc_fork_worker(void);

/* While workers run, SIGINT, SIGTERM and SIGHUP only set a flag, so that the
 * parent can kill and reap its workers and remove its temporary files before
 * it dies of the signal (proc_guard_end, then proc_die).  The guard also
 * ignores SIGPIPE: a write to a closed pipe fails with EPIPE instead. */
void proc_guard_begin(void);
void proc_guard_end(void);
int proc_stop_signal(void); /* the signal caught since proc_guard_begin, or 0 */
/* Dies of SIG as if it had not been caught (the exit status shows it). */
_Noreturn void proc_die(int sig);

/* Kills (SIGKILL) and reaps the N workers of PIDS that are still running
 * (pid > 0); their pids become 0. */
void proc_kill_all(pid_t *pids, int n);

/* Workers that each send their results as lines on a pipe of their own, read
 * by the parent as they come (no temporary files: a full disk cannot cut a
 * worker's results short, and a run's results are in hand game by game). */
enum { PROC_MAX_WORKERS = 256 };
typedef struct proc_crew {
  int n;
  pid_t pid[PROC_MAX_WORKERS]; /* 0 once reaped */
  int fd[PROC_MAX_WORKERS];    /* the read end, -1 once at its end */
  strbuf part[PROC_MAX_WORKERS];
  long lines[PROC_MAX_WORKERS];  /* complete lines received */
  int status[PROC_MAX_WORKERS];  /* waitpid's status once reaped */
  bool cut[PROC_MAX_WORKERS];    /* its output ended inside a line */
} proc_crew;
/* In worker W (a child): sends its lines on FD, then returns (the child exits 0). */
typedef void (*proc_work_fn)(void *ud, int w, int fd);
/* Starts N workers (proc_fork_worker) under the guard (proc_guard_begin);
 * false with the reason in WHY (those started are killed). */
bool proc_crew_start(proc_crew *c, int n, proc_work_fn work, void *ud, strbuf *why);
/* Each complete line of worker W as it arrives: 0, or a code that stops the run. */
typedef int (*proc_line_fn)(void *ud, int w, const char *line);
/* Reads every worker's lines to their end and reaps the workers.  Returns 0;
 * ON_LINE's code when it stopped the run; or minus the signal caught (then
 * the workers are killed and reaped, and the caller cleans up and proc_die's). */
int proc_crew_collect(proc_crew *c, proc_line_fn on_line, void *ud);
/* How worker W ended, for a message ("was killed by signal 9", "exited with status 74"); "" when it ended well. */
void proc_crew_end(const proc_crew *c, int w, strbuf *out);
/* Writes all N bytes of S to FD (a worker's results); false with errno set. */
bool proc_write_all(int fd, const char *s, size_t n);

/* Runs ARGV[0] (looked up in PATH, no shell: the arguments reach it as they
 * are), with INPUT (N bytes) on its standard input, its standard output
 * appended to OUT through stdio (so that OUT's own error checks see every
 * write), its standard error into ERRTEXT.  Returns false with the reason in
 * WHY when it cannot be started, does not end normally or exits non-zero
 * (its standard error is then in ERRTEXT), or OUT cannot be written. */
bool proc_run_filter(const char *const *argv, const char *input, size_t n, FILE *out, strbuf *errtext, strbuf *why);

#endif
