package proc

import (
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Descendants lists every process below root, from /proc. Unlike the process group, it
// includes children that made groups of their own (terraform-exec puts terraform in one).
func Descendants(root int) []int {
	entries, _ := os.ReadDir("/proc")
	children := map[int][]int{}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces, so read after the last ')'.
		fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
		if len(fields) < 2 {
			continue
		}
		ppid, _ := strconv.Atoi(fields[1])
		children[ppid] = append(children[ppid], pid)
	}
	var out []int
	queue := []int{root}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, c := range children[p] {
			out = append(out, c)
			queue = append(queue, c)
		}
	}
	return out
}

// Crash stops every process under the leader at once, as a lost host or a killed container
// would (so nothing forks or writes past the moment), then SIGKILLs them all and the leader's
// group, and waits for the leader. It returns the processes it killed, the leader included.
func (p *Process) Crash() ([]int, error) {
	if p == nil || p.cmd == nil {
		return nil, nil
	}
	root := p.cmd.Process.Pid
	_ = syscall.Kill(-root, syscall.SIGSTOP)
	seen := map[int]bool{}
	for i := 0; i < 3; i++ { // again, for anything forked while the first pass ran
		for _, pid := range Descendants(root) {
			seen[pid] = true
			_ = syscall.Kill(pid, syscall.SIGSTOP)
		}
	}
	killed := []int{root}
	for pid := range seen {
		_ = syscall.Kill(pid, syscall.SIGKILL)
		killed = append(killed, pid)
	}
	return killed, p.Kill()
}

// ReapOrphan waits up to timeout for pid, a process this one adopted as a child subreaper
// (PR_SET_CHILD_SUBREAPER), to die, and reaps it. A survivor is SIGKILLed and reaped, so a
// test leaves nothing behind; exited says whether it died by itself in time.
func ReapOrphan(pid int, timeout time.Duration) (status syscall.WaitStatus, exited bool, err error) {
	for deadline := time.Now().Add(timeout); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		got, err := syscall.Wait4(pid, &status, syscall.WNOHANG, nil)
		if err != nil {
			return status, false, err
		}
		if got == pid {
			return status, true, nil
		}
	}
	_ = syscall.Kill(pid, syscall.SIGKILL)
	_, _ = syscall.Wait4(pid, &status, 0, nil)
	return status, false, nil
}
