package testsuite

import (
	"bytes"
	"sync"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/slipway-dev/slipway/internal/logging"
)

// logBuffer keeps everything an env's worker logs, so tests can search it.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *logBuffer) Sync() error { return nil }

func (b *logBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// logger logs at debug level, the most a worker could ever say, into b.
func (b *logBuffer) logger() *logging.Temporal {
	enc := zapcore.NewConsoleEncoder(zap.NewDevelopmentEncoderConfig())
	return logging.NewTemporal(zap.New(zapcore.NewCore(enc, b, zap.DebugLevel)))
}

// WorkerLog is what the env's worker (and its client) logged so far.
func (e *Env) WorkerLog() string {
	if e.log == nil {
		return ""
	}
	return e.log.String()
}
