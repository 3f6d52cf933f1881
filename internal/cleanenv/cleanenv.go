// Package cleanenv keeps a long-running slipway process's secrets out of /proc/<pid>/environ.
// The kernel shows a process's environment as it was at exec, whatever the process unsets
// later, and any process of the same user may read it. Reexec runs the program again with an
// environment block holding only the Go runtime's settings and hands the real environment
// over on an inherited pipe; this package's init reads it back before main runs, so the
// program sees every variable as before while /proc/<pid>/environ shows none of them.
package cleanenv

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"
)

// EnvFD names the pipe the environment arrives on; only Reexec sets it.
const EnvFD = "SLIPWAY_ENV_FD"

// runtimeVars are read by the Go runtime before any package's init, and the time zone: they
// stay in the block, and hold no secret.
var runtimeVars = []string{"GODEBUG", "GOGC", "GOMEMLIMIT", "GOMAXPROCS", "GOTRACEBACK", "TZ", "ZONEINFO"}

// handedOver says this process got its environment from Reexec.
var handedOver bool

func init() {
	v, ok := os.LookupEnv(EnvFD)
	if !ok {
		return
	}
	if err := restore(v); err != nil {
		fmt.Fprintln(os.Stderr, "slipway: "+EnvFD+": ", err)
		os.Exit(1)
	}
	handedOver = true
}

// restore reads the environment from the pipe fd and sets it.
func restore(fd string) error {
	n, err := strconv.Atoi(fd)
	if err != nil || n < 3 {
		return fmt.Errorf("%q is not a pipe this process was given", fd)
	}
	f := os.NewFile(uintptr(n), "environment")
	data, err := io.ReadAll(f)
	_ = f.Close()
	if err != nil {
		return err
	}
	os.Clearenv()
	for _, kv := range bytes.Split(data, []byte{0}) {
		if k, v, ok := strings.Cut(string(kv), "="); ok && k != "" {
			if err := os.Setenv(k, v); err != nil {
				return err
			}
		}
	}
	return nil
}

// maxHandover bounds the environment handed over: the pipe must hold it all before the exec.
const maxHandover = 1 << 20

// Reexec replaces the process with a fresh run of its own binary whose environment block holds
// only the runtime's settings; on success it does not return. Call it first thing in main. It
// returns nil at once in the process it started, and off Linux.
func Reexec() error {
	if handedOver || runtime.GOOS != "linux" {
		return nil
	}
	var data []byte
	for _, kv := range os.Environ() {
		data = append(append(data, kv...), 0)
	}
	if len(data) > maxHandover {
		return fmt.Errorf("the environment is %d bytes, more than the %d slipway hands over", len(data), maxHandover)
	}
	var p [2]int
	if err := syscall.Pipe2(p[:], 0); err != nil { // no O_CLOEXEC: the read end crosses the exec
		return fmt.Errorf("pipe: %w", err)
	}
	r, w := p[0], p[1]
	if len(data) > 64<<10 {
		if _, _, errno := syscall.Syscall(syscall.SYS_FCNTL, uintptr(w), syscall.F_SETPIPE_SZ, uintptr(len(data))); errno != 0 {
			return fmt.Errorf("pipe of %d bytes: %w", len(data), errno)
		}
	}
	for off := 0; off < len(data); {
		n, err := syscall.Write(w, data[off:])
		if err != nil {
			return fmt.Errorf("hand the environment over: %w", err)
		}
		off += n
	}
	if err := syscall.Close(w); err != nil {
		return err
	}
	env := []string{EnvFD + "=" + strconv.Itoa(r)}
	for _, k := range runtimeVars {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	err := syscall.Exec("/proc/self/exe", os.Args, env)
	_ = syscall.Close(r)
	return fmt.Errorf("re-exec /proc/self/exe: %w", err)
}
