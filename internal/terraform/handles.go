package terraform

import (
	"os"
	"sync"
	"time"

	"github.com/hashicorp/terraform-exec/tfexec"
)

// maxIdleHandles bounds the handles kept between commands; past it, one is dropped.
const maxIdleHandles = 256

// handles keeps terraform-exec's handle of a workspace's engine between commands. A handle caches
// the engine's version, which terraform-exec otherwise asks with a `terraform version` of its own
// before nearly every command: a process each, in the sandbox, about as long as a `state pull`.
// A handle is used by one command at a time; each open sets its whole environment and writers.
type handles struct {
	mu   sync.Mutex
	idle map[handleKey][]*tfexec.Terraform
	n    int
}

// handleKey names what a handle runs: the working directory, what terraform-exec execs (the
// engine, or the sandbox's wrapper) and the engine binary with its modification time, so an
// engine replaced in place is asked its version again.
type handleKey struct {
	dir, exec, binary string
	mtime             time.Time
}

func keyOf(dir, exec, binary string) handleKey {
	k := handleKey{dir: dir, exec: exec, binary: binary}
	if fi, err := os.Stat(binary); err == nil {
		k.mtime = fi.ModTime()
	}
	return k
}

// get is an idle handle for k, or a new one.
func (h *handles) get(k handleKey) (*tfexec.Terraform, error) {
	h.mu.Lock()
	if l := h.idle[k]; len(l) > 0 {
		tf := l[len(l)-1]
		if len(l) == 1 {
			delete(h.idle, k)
		} else {
			h.idle[k] = l[:len(l)-1]
		}
		h.n--
		h.mu.Unlock()
		return tf, nil
	}
	h.mu.Unlock()
	return tfexec.NewTerraform(k.dir, k.exec)
}

// put keeps tf for the next command on k, without the last command's environment (its
// credentials) or writers.
func (h *handles) put(k handleKey, tf *tfexec.Terraform) {
	_ = tf.SetEnv(map[string]string{})
	tf.SetStdout(nil)
	tf.SetStderr(nil)
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.idle == nil {
		h.idle = map[handleKey][]*tfexec.Terraform{}
	}
	if h.n >= maxIdleHandles {
		for old, l := range h.idle { // any one: a dropped handle costs one version check
			h.n -= len(l)
			delete(h.idle, old)
			break
		}
	}
	h.idle[k] = append(h.idle[k], tf)
	h.n++
}
