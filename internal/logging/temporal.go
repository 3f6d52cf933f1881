// Package logging builds zap loggers and adapts them to Temporal's logger.
package logging

import (
	"os"

	"go.temporal.io/sdk/log"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
)

// New returns a console logger at level (debug, info, warn, error) writing to stderr.
func New(level string) (*zap.Logger, error) {
	lvl, err := zapcore.ParseLevel(level)
	if err != nil {
		return nil, err
	}
	cfg := zap.NewDevelopmentConfig()
	cfg.Level = zap.NewAtomicLevelAt(lvl)
	cfg.DisableStacktrace = true
	cfg.OutputPaths, cfg.ErrorOutputPaths = []string{"stderr"}, []string{"stderr"}
	return cfg.Build()
}

// Nop is a logger that drops everything (CLI clients, quiet tests).
func Nop() *zap.Logger { return zap.NewNop() }

// Temporal adapts zap to go.temporal.io/sdk/log.Logger and log.WithLogger.
type Temporal struct{ z *zap.SugaredLogger }

// NewTemporal wraps z; the SDK's own call frames are skipped so callers show.
func NewTemporal(z *zap.Logger) *Temporal {
	return &Temporal{z: z.WithOptions(zap.AddCallerSkip(1)).Sugar()}
}

var (
	_ log.Logger     = (*Temporal)(nil)
	_ log.WithLogger = (*Temporal)(nil)
)

func (t *Temporal) Debug(msg string, kv ...any) { t.z.Debugw(msg, kv...) }
func (t *Temporal) Info(msg string, kv ...any)  { t.z.Infow(msg, kv...) }
func (t *Temporal) Warn(msg string, kv ...any)  { t.z.Warnw(msg, kv...) }
func (t *Temporal) Error(msg string, kv ...any) { t.z.Errorw(msg, kv...) }

// With returns a logger that adds kv to every entry.
func (t *Temporal) With(kv ...any) log.Logger { return &Temporal{z: t.z.With(kv...)} }

// LevelFromEnv reads SLIPWAY_LOG_LEVEL, defaulting to def.
func LevelFromEnv(def string) string {
	if l := os.Getenv("SLIPWAY_LOG_LEVEL"); l != "" {
		return l
	}
	return def
}
