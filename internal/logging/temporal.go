// Package logging builds zap loggers and adapts them to Temporal's logger.
package logging

import (
	"fmt"
	"maps"
	"os"

	"go.temporal.io/sdk/log"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"golang.org/x/term"
)

// EnvFormat picks the log format: json or console.
const EnvFormat = "SLIPWAY_LOG_FORMAT"

// Log formats.
const (
	FormatJSON    = "json"
	FormatConsole = "console"
)

// New returns a logger at level (debug, info, warn, error) writing to stderr, in the format
// SLIPWAY_LOG_FORMAT names: console by default on a terminal, JSON otherwise (a log collector).
// Errors name the variable at fault.
func New(level string) (*zap.Logger, error) {
	format, err := FormatFromEnv(os.Getenv, term.IsTerminal(int(os.Stderr.Fd())))
	if err != nil {
		return nil, err
	}
	return NewTo(zapcore.Lock(os.Stderr), level, format)
}

// FormatFromEnv is SLIPWAY_LOG_FORMAT, or console when stderr is a terminal and json otherwise.
func FormatFromEnv(getenv func(string) string, terminal bool) (string, error) {
	switch v := getenv(EnvFormat); v {
	case FormatJSON, FormatConsole:
		return v, nil
	case "":
		if terminal {
			return FormatConsole, nil
		}
		return FormatJSON, nil
	default:
		return "", fmt.Errorf("%s=%q: want json or console", EnvFormat, v)
	}
}

// NewTo returns a logger at level writing to w: format json is zap's production encoding (one
// JSON object a line, ISO 8601 times, stack traces on errors), console its development one.
func NewTo(w zapcore.WriteSyncer, level, format string) (*zap.Logger, error) {
	lvl, err := zapcore.ParseLevel(level)
	if err != nil {
		return nil, fmt.Errorf("SLIPWAY_LOG_LEVEL: %w", err)
	}
	var enc zapcore.Encoder
	var opts []zap.Option
	switch format {
	case FormatJSON:
		ec := zap.NewProductionEncoderConfig()
		ec.EncodeTime = zapcore.ISO8601TimeEncoder
		enc = zapcore.NewJSONEncoder(ec)
		opts = append(opts, zap.AddStacktrace(zapcore.ErrorLevel))
	case FormatConsole:
		enc = zapcore.NewConsoleEncoder(zap.NewDevelopmentEncoderConfig())
	default:
		return nil, fmt.Errorf("%s=%q: want json or console", EnvFormat, format)
	}
	return zap.New(zapcore.NewCore(enc, w, lvl), append(opts, zap.AddCaller(), zap.ErrorOutput(w))...), nil
}

// Nop is a logger that drops everything (CLI clients, quiet tests).
func Nop() *zap.Logger { return zap.NewNop() }

// Temporal adapts zap to go.temporal.io/sdk/log.Logger and log.WithLogger. Every line that
// names a workflow or activity of an instance also carries the instance, operation,
// operationID and step (see operation.go), whoever logs it: the SDK or slipway.
type Temporal struct {
	z *zap.SugaredLogger
	// has are the operation fields already on z.
	has map[string]bool
}

// NewTemporal wraps z; the SDK's own call frames are skipped so callers show.
func NewTemporal(z *zap.Logger) *Temporal {
	return &Temporal{z: z.WithOptions(zap.AddCallerSkip(1)).Sugar()}
}

var (
	_ log.Logger     = (*Temporal)(nil)
	_ log.WithLogger = (*Temporal)(nil)
)

func (t *Temporal) Debug(msg string, kv ...any) { t.z.Debugw(msg, t.fields(kv)...) }
func (t *Temporal) Info(msg string, kv ...any)  { t.z.Infow(msg, t.fields(kv)...) }
func (t *Temporal) Warn(msg string, kv ...any)  { t.z.Warnw(msg, t.fields(kv)...) }
func (t *Temporal) Error(msg string, kv ...any) { t.z.Errorw(msg, t.fields(kv)...) }

// With returns a logger that adds kv to every entry.
func (t *Temporal) With(kv ...any) log.Logger {
	kv = t.fields(kv)
	has := maps.Clone(t.has)
	for i := 0; i+1 < len(kv); i += 2 {
		if k, ok := kv[i].(string); ok && operationKeys[k] {
			if has == nil {
				has = map[string]bool{}
			}
			has[k] = true
		}
	}
	return &Temporal{z: t.z.With(kv...), has: has}
}

// LevelFromEnv reads SLIPWAY_LOG_LEVEL, defaulting to def.
func LevelFromEnv(def string) string {
	if l := os.Getenv("SLIPWAY_LOG_LEVEL"); l != "" {
		return l
	}
	return def
}
