/* proc.c -- child processes: workers tied to their parent's life, the
 * parent's signal guard, and programs run without a shell (proc.h).
 *
 * simulate, compare and verify split their work over forked workers.  A
 * worker whose parent is gone has nobody to report to, so it must not go on
 * burning a CPU for hours under init: on Linux the kernel's parent-death
 * signal kills it.  The parent, for its part, catches the usual termination
 * signals while it waits, so that it kills and reaps its workers and removes
 * its temporary files before dying of the signal it got. */
#define _GNU_SOURCE /* pipe2 */
#include "proc.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

static const int guarded[] = {SIGINT, SIGTERM, SIGHUP};
enum { NGUARDED = sizeof guarded / sizeof *guarded };
static volatile sig_atomic_t stop_sig;
static struct sigaction saved[NGUARDED], saved_pipe;
static bool guarding;

static int stdout_errno;

void proc_flush(void) {
  errno = 0;
  if (fflush(stdout) != 0 && !stdout_errno) stdout_errno = errno ? errno : EIO;
  fflush(NULL);
}

int proc_stdout_errno(void) { return stdout_errno; }

pid_t proc_fork_worker(void) {
  pid_t parent = getpid();
  proc_flush(); /* nothing buffered is written twice */
  pid_t pid = fork();
  if (pid != 0) return pid;
#ifdef __linux__
  prctl(PR_SET_PDEATHSIG, SIGKILL);
#endif
  if (getppid() != parent) _exit(70); /* the parent died before the line above: nobody to report to */
  for (int i = 0; i < NGUARDED; i++) signal(guarded[i], SIG_DFL);
  signal(SIGPIPE, SIG_DFL);
  return 0;
}

static void on_signal(int sig) {
  if (!stop_sig) stop_sig = sig;
}

void proc_guard_begin(void) {
  stop_sig = 0;
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal; /* no SA_RESTART: a waiting poll or read returns EINTR */
  sigemptyset(&sa.sa_mask);
  for (int i = 0; i < NGUARDED; i++) sigaction(guarded[i], &sa, &saved[i]);
  struct sigaction ign;
  memset(&ign, 0, sizeof ign);
  ign.sa_handler = SIG_IGN;
  sigaction(SIGPIPE, &ign, &saved_pipe);
  guarding = true;
}

void proc_guard_end(void) {
  if (!guarding) return;
  for (int i = 0; i < NGUARDED; i++) sigaction(guarded[i], &saved[i], NULL);
  sigaction(SIGPIPE, &saved_pipe, NULL);
  guarding = false;
}

int proc_stop_signal(void) { return stop_sig; }

_Noreturn void proc_die(int sig) {
  proc_guard_end();
  fflush(NULL);
  signal(sig, SIG_DFL);
  raise(sig);
  _exit(128 + sig); /* a signal that did not kill (it was blocked) */
}

void proc_kill_all(pid_t *pids, int n) {
  for (int i = 0; i < n; i++)
    if (pids[i] > 0) kill(pids[i], SIGKILL);
  for (int i = 0; i < n; i++)
    if (pids[i] > 0) {
      while (waitpid(pids[i], NULL, 0) < 0 && errno == EINTR) {}
      pids[i] = 0;
    }
}

/* ---- workers sending lines ---- */

bool proc_write_all(int fd, const char *s, size_t n) {
  while (n) {
    ssize_t w = write(fd, s, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    s += w, n -= (size_t)w;
  }
  return true;
}

bool proc_crew_start(proc_crew *c, int n, proc_work_fn work, void *ud, strbuf *why) {
  memset(c, 0, sizeof *c);
  proc_guard_begin();
  for (int w = 0; w < n; w++) {
    int fd[2];
    if (pipe2(fd, O_CLOEXEC) < 0) {
      sb_printf(why, "cannot make a pipe for worker %d: %s", w + 1, strerror(errno));
      proc_kill_all(c->pid, c->n);
      proc_guard_end();
      return false;
    }
    pid_t pid = proc_fork_worker();
    if (pid < 0) {
      sb_printf(why, "cannot start worker %d: %s", w + 1, strerror(errno));
      close(fd[0]), close(fd[1]);
      proc_kill_all(c->pid, c->n);
      proc_guard_end();
      return false;
    }
    if (pid == 0) {
      close(fd[0]);
      for (int k = 0; k < c->n; k++) close(c->fd[k]); /* the other workers' pipes end when they do */
      work(ud, w, fd[1]);
      _exit(0);
    }
    close(fd[1]);
    c->pid[w] = pid, c->fd[w] = fd[0];
    c->n = w + 1;
  }
  return true;
}

static void crew_reap(proc_crew *c) {
  for (int w = 0; w < c->n; w++)
    if (c->pid[w] > 0) {
      while (waitpid(c->pid[w], &c->status[w], 0) < 0 && errno == EINTR) {}
      c->pid[w] = 0;
    }
}

static void crew_close(proc_crew *c) {
  for (int w = 0; w < c->n; w++) {
    if (c->fd[w] >= 0) close(c->fd[w]);
    c->fd[w] = -1;
    sb_free(&c->part[w]);
  }
}

int proc_crew_collect(proc_crew *c, proc_line_fn on_line, void *ud) {
  int open_fds = c->n, rc = 0;
  while (open_fds > 0 && !rc) {
    int sig = proc_stop_signal();
    if (sig) {
      rc = -sig;
      break;
    }
    struct pollfd p[PROC_MAX_WORKERS];
    int who[PROC_MAX_WORKERS], np = 0;
    for (int w = 0; w < c->n; w++)
      if (c->fd[w] >= 0) p[np] = (struct pollfd){.fd = c->fd[w], .events = POLLIN}, who[np++] = w;
    if (poll(p, (nfds_t)np, -1) < 0) {
      if (errno == EINTR) continue; /* a signal: seen at the top */
      rc = 70;
      fprintf(stderr, "mentat: waiting for the workers failed: %s\n", strerror(errno));
      break;
    }
    for (int i = 0; i < np && !rc; i++) {
      if (!p[i].revents) continue;
      int w = who[i];
      char buf[8192];
      ssize_t got = read(c->fd[w], buf, sizeof buf);
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) { /* the end of its results (or a read error: its results end here, and it is reported) */
        if (got < 0) fprintf(stderr, "mentat: reading worker %d's results failed: %s\n", w + 1, strerror(errno));
        c->cut[w] = c->part[w].n > 0;
        close(c->fd[w]), c->fd[w] = -1, open_fds--;
        continue;
      }
      sb_putn(&c->part[w], buf, (size_t)got);
      char *start = c->part[w].s, *nl;
      while (!rc && (nl = memchr(start, '\n', c->part[w].n - (size_t)(start - c->part[w].s)))) {
        *nl = 0;
        c->lines[w]++;
        rc = on_line(ud, w, start);
        start = nl + 1;
      }
      size_t left = c->part[w].n - (size_t)(start - c->part[w].s);
      memmove(c->part[w].s, start, left);
      c->part[w].n = left;
      c->part[w].s[left] = 0;
    }
  }
  if (rc) proc_kill_all(c->pid, c->n);
  crew_close(c);
  crew_reap(c);
  proc_guard_end();
  return rc;
}

void proc_crew_end(const proc_crew *c, int w, strbuf *out) {
  int st = c->status[w];
  if (WIFSIGNALED(st)) sb_printf(out, "was killed by signal %d", WTERMSIG(st));
  else if (WIFEXITED(st) && WEXITSTATUS(st) != 0) sb_printf(out, "exited with status %d", WEXITSTATUS(st));
  else if (c->cut[w]) sb_puts(out, "ended in the middle of a result");
}

/* ---- a program without a shell ---- */

bool proc_run_filter(const char *const *argv, const char *input, size_t n, FILE *out, strbuf *errtext, strbuf *why) {
  int in[2], outp[2], errp[2], status[2]; /* status: the child's exec errno, if exec fails */
  if (pipe2(in, O_CLOEXEC) < 0) return sb_printf(why, "cannot run %s: %s", argv[0], strerror(errno)), false;
  if (pipe2(outp, O_CLOEXEC) < 0) {
    int e = errno;
    close(in[0]), close(in[1]);
    return sb_printf(why, "cannot run %s: %s", argv[0], strerror(e)), false;
  }
  if (pipe2(errp, O_CLOEXEC) < 0 || pipe2(status, O_CLOEXEC) < 0) {
    int e = errno;
    close(in[0]), close(in[1]), close(outp[0]), close(outp[1]);
    return sb_printf(why, "cannot run %s: %s", argv[0], strerror(e)), false;
  }
  proc_flush();
  pid_t pid = fork();
  if (pid == 0) {
#ifdef __linux__
    prctl(PR_SET_PDEATHSIG, SIGKILL);
#endif
    signal(SIGPIPE, SIG_DFL);
    if (dup2(in[0], 0) < 0 || dup2(outp[1], 1) < 0 || dup2(errp[1], 2) < 0) _exit(127);
    char *const *av; /* execvp's historical type: it does not write the strings */
    memcpy(&av, &argv, sizeof av);
    execvp(argv[0], av);
    int e = errno;
    if (write(status[1], &e, sizeof e) < 0) _exit(127);
    _exit(127);
  }
  int fork_err = errno;
  close(in[0]), close(outp[1]), close(errp[1]), close(status[1]);
  if (pid < 0) {
    close(in[1]), close(outp[0]), close(errp[0]), close(status[0]);
    return sb_printf(why, "cannot run %s: fork: %s", argv[0], strerror(fork_err)), false;
  }
  /* the script in, the output and the messages out, all at once: a program
   * that writes before it has read everything must not block on a full pipe */
  struct sigaction ign, old_pipe;
  memset(&ign, 0, sizeof ign);
  ign.sa_handler = SIG_IGN;
  sigaction(SIGPIPE, &ign, &old_pipe);
  size_t sent = 0;
  int wfd = in[1];
  if (n == 0) close(wfd), wfd = -1;
  int rfd[2] = {outp[0], errp[0]};
  bool out_ok = true;
  int out_err = 0;
  while (wfd >= 0 || rfd[0] >= 0 || rfd[1] >= 0) {
    struct pollfd p[3];
    int np = 0, who[3];
    if (wfd >= 0) p[np] = (struct pollfd){.fd = wfd, .events = POLLOUT}, who[np++] = 2;
    for (int k = 0; k < 2; k++)
      if (rfd[k] >= 0) p[np] = (struct pollfd){.fd = rfd[k], .events = POLLIN}, who[np++] = k;
    if (poll(p, (nfds_t)np, -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    for (int i = 0; i < np; i++) {
      if (!p[i].revents) continue;
      if (who[i] == 2) {
        ssize_t w = write(wfd, input + sent, n - sent);
        if (w > 0) sent += (size_t)w;
        if ((w < 0 && errno != EINTR && errno != EAGAIN) || sent == n) close(wfd), wfd = -1;
        continue;
      }
      char buf[4096];
      ssize_t got = read(rfd[who[i]], buf, sizeof buf);
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) {
        close(rfd[who[i]]), rfd[who[i]] = -1;
        continue;
      }
      if (who[i] == 1) sb_putn(errtext, buf, (size_t)got);
      else if (out_ok && fwrite(buf, 1, (size_t)got, out) != (size_t)got) out_ok = false, out_err = errno ? errno : EIO;
    }
  }
  if (wfd >= 0) close(wfd);
  sigaction(SIGPIPE, &old_pipe, NULL);
  int st = 0;
  while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {}
  int exec_err = 0;
  ssize_t got = read(status[0], &exec_err, sizeof exec_err);
  close(status[0]);
  if (got == (ssize_t)sizeof exec_err)
    return sb_printf(why, "cannot run %s: %s", argv[0], strerror(exec_err)), false;
  if (WIFSIGNALED(st)) return sb_printf(why, "%s was killed by signal %d", argv[0], WTERMSIG(st)), false;
  if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
    return sb_printf(why, "%s failed (exit %d)", argv[0], WIFEXITED(st) ? WEXITSTATUS(st) : -1), false;
  if (!out_ok) return sb_printf(why, "cannot write the output of %s: %s", argv[0], strerror(out_err)), false;
  return true;
}
