package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"

	"github.com/slipway-dev/slipway/internal/devstack/devenv"
)

// startWorker builds and runs a real slipway-worker on env's server, repository and key, so the
// webhook server and the worker it saturates are separate processes, as in production.
func startWorker(dir string, env *devenv.Env) (stop func(), err error) {
	bin := filepath.Join(dir, "slipway-worker")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/slipway-dev/slipway/worker").CombinedOutput(); err != nil {
		return nil, fmt.Errorf("build the worker: %v: %s", err, out)
	}
	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(), "TEMPORAL_ADDRESS="+env.Address, "SLIPWAY_TASK_QUEUE=webhookbench",
		"SLIPWAY_GITOPS_REPO="+env.GitOpsRepo, "SLIPWAY_STATE_DIR="+filepath.Join(dir, "worker"),
		"SLIPWAY_DEPLOYER=none", "SLIPWAY_LOG_LEVEL=warn")
	if env.KeyFile != "" {
		cmd.Env = append(cmd.Env, "SLIPWAY_CODEC_KEY=", "SLIPWAY_CODEC_KEY_FILE="+env.KeyFile)
	}
	if env.AttestKeyFile != "" {
		cmd.Env = append(cmd.Env, "SLIPWAY_ATTEST_KEY=", "SLIPWAY_ATTEST_KEY_FILE="+env.AttestKeyFile)
	}
	log, err := os.Create(filepath.Join(dir, "worker.log"))
	if err != nil {
		return nil, err
	}
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL} // never outlives the bench
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		_ = cmd.Wait()
		_ = log.Close()
	}, nil
}
