"""Running a command in a process group of its own (standard library only:
the simulation tests under tests/sim import it without the lab's packages)."""
import contextlib
import os
import signal
import subprocess
import threading


def run_group(cmd, timeout, **kwargs):
    """subprocess.run with output captured, in a session of its own, so that a
    timeout, an interrupt or a SIGTERM kills the whole process group: a
    launcher's grandchildren (mpirun's ranks, smpirun's simulator) outlive a
    killed launcher otherwise. The SIGTERM handling holds while the command
    runs, whoever calls (a script that imports the runner need not install
    terminate_as_interrupt itself)."""
    with _sigterm_as_interrupt(), subprocess.Popen(
            cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            start_new_session=True, **kwargs) as proc:
        try:
            out, err = proc.communicate(timeout=timeout)
        except BaseException:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
            raise
    return subprocess.CompletedProcess(cmd, proc.returncode, out, err)


@contextlib.contextmanager
def _sigterm_as_interrupt():
    """terminate_as_interrupt for the duration of the block, the caller's own
    handler restored after it. Signal handlers belong to the main thread: in
    another thread this does nothing (the main thread's handler decides)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, _interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _interrupt(signum, frame):
    raise KeyboardInterrupt


def terminate_as_interrupt():
    """A SIGTERM (`kill`, a batch system's time limit) then ends the program as
    Ctrl-C does: run_group kills the command's process group on the way out,
    where a plain SIGTERM would leave a simulation running for hours without
    its launcher."""
    signal.signal(signal.SIGTERM, _interrupt)
