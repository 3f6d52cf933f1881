package terraform

import (
	"bytes"
	"os"
	"strconv"
	"syscall"
	"time"
)

// sweep kills every process still carrying the run's marker once terraform returned: a
// local-exec child terraform abandoned (it kills only the shell when interrupted), or one a
// provisioner left in the background, must not outlive the step and run on beside its retry.
// It returns how many it killed.
func sweep(marker string) int {
	if marker == "" {
		return 0
	}
	want := []byte(EnvRunMarker + "=" + marker + "\x00")
	killed := 0
	// Passes go on until one finds none: a child forked while its parent was being killed is
	// caught by the next. A killed process may show once more while it exits; the bound is a net.
	for range 10 {
		ents, err := os.ReadDir("/proc")
		if err != nil {
			return killed
		}
		n := 0
		for _, e := range ents {
			pid, err := strconv.Atoi(e.Name())
			if err != nil || pid == os.Getpid() {
				continue
			}
			env, err := os.ReadFile("/proc/" + e.Name() + "/environ")
			if err != nil || !bytes.Contains(append([]byte{0}, env...), append([]byte{0}, want...)) {
				continue
			}
			if syscall.Kill(pid, syscall.SIGKILL) == nil {
				n++
			}
		}
		killed += n
		if n == 0 {
			break
		}
		// Let what was killed exit, and what it forked appear, before looking again.
		time.Sleep(20 * time.Millisecond)
	}
	return killed
}
