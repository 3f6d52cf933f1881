// Package client is how the CLI, the API server (internal/apiserver), the webhook
// server and the worker's own wiring talk to slipway through Temporal: it turns
// requests into Updates on the instance's entity workflow, reads its status, events
// and resources, and starts and reads rollouts, drift sweeps, gates, approvals and
// fleet counts.
package client

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/contrib/envconfig"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/interceptor"
	"go.temporal.io/sdk/log"

	"github.com/slipway-dev/slipway/internal/attest"
	"github.com/slipway-dev/slipway/internal/codec"
	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/errkind"
	"github.com/slipway-dev/slipway/internal/identity"
	"github.com/slipway-dev/slipway/internal/localdirs"
)

// Client talks to one Temporal namespace and task queue.
type Client struct {
	Temporal  client.Client
	TaskQueue string
	Namespace string
	// Payloads decodes what history holds (the payload codec); nil for a wrapped client, which
	// then cannot read an instance's event log.
	Payloads converter.DataConverter
	// Failures decodes the failures Temporal keeps (a retrying step's last error); nil: the SDK's default.
	Failures converter.FailureConverter
	// AuditLog is the durable audit log `slipway audit` reads beside histories; nil: histories only.
	AuditLog AuditLog
}

// Option adjusts the Temporal connection loaded from the environment.
type Option func(*settings)

// settings are the connection's options and who it signs for.
type settings struct {
	client.Options
	actor  *identity.Actor
	attest *attest.Keyring
	// profile names the config file's profile; profileNamedBy what named it ("" falls back).
	profile, profileNamedBy string
}

// WithHostPort overrides TEMPORAL_ADDRESS (e.g. a dev server slipway started).
func WithHostPort(addr string) Option { return func(o *settings) { o.HostPort = addr } }

// WithNamespace overrides TEMPORAL_NAMESPACE and the profile's namespace (--namespace).
func WithNamespace(ns string) Option { return func(o *settings) { o.Namespace = ns } }

// WithProfile reads profile name of the Temporal config file (see ConfigFile) instead of
// TEMPORAL_PROFILE's; TEMPORAL_* variables still override it. namedBy is what named it (a flag or
// variable): the file lacking that profile is then a *ProfileNotFoundError. With namedBy "" (a
// name that may be only a sign-in's, e.g. $SLIPWAY_PROFILE) a lacking file falls back to
// TEMPORAL_PROFILE or its default profile.
func WithProfile(name, namedBy string) Option {
	return func(o *settings) { o.profile, o.profileNamedBy = name, namedBy }
}

// WithLogger sets the SDK's logger.
func WithLogger(l log.Logger) Option { return func(o *settings) { o.Logger = l } }

// WithKeyring encrypts every payload with k (see internal/codec).
func WithKeyring(k *codec.Keyring) Option {
	return func(o *settings) { o.DataConverter = codec.DataConverter(k) }
}

// WithDataConverter sets the payload converter outright (e.g. tests that read raw payloads).
func WithDataConverter(dc converter.DataConverter) Option {
	return func(o *settings) { o.DataConverter = dc }
}

// WithIdentity is who the client signs its requests for when the request's context names no
// one (identity.With): the component itself. Without it, a service named after the program.
func WithIdentity(a identity.Actor) Option { return func(o *settings) { o.actor = &a } }

// WithInterceptors adds client interceptors (tracing); they run outside slipway's signer.
func WithInterceptors(ics ...interceptor.ClientInterceptor) Option {
	return func(o *settings) { o.Interceptors = append(o.Interceptors, ics...) }
}

// WithMetricsHandler records the SDK's metrics (and the workflows' own) with h (see internal/metrics).
func WithMetricsHandler(h client.MetricsHandler) Option {
	return func(o *settings) { o.MetricsHandler = h }
}

// WithAttestation signs with k instead of the key ring attest.Load finds.
func WithAttestation(k *attest.Keyring) Option { return func(o *settings) { o.attest = k } }

// ProgramActor is the service identity of this program: slipway-worker, slipway, ...
func ProgramActor() identity.Actor {
	return identity.Actor{Kind: identity.Service, Issuer: "slipway", Name: filepath.Base(os.Args[0])}
}

// DevKeyFile is the key file `slipway dev` creates in its default state dir; a
// client uses it when neither SLIPWAY_CODEC_KEY nor SLIPWAY_CODEC_KEY_FILE is set.
func DevKeyFile() string { return filepath.Join(localdirs.DevState(), codec.KeyFileName) }

// Options loads the connection settings from TEMPORAL_* variables and the
// Temporal config file (go.temporal.io/sdk/contrib/envconfig), then applies opts.
// Without WithKeyring/WithDataConverter the payload key comes from
// SLIPWAY_CODEC_KEY, SLIPWAY_CODEC_KEY_FILE or DevKeyFile, else *codec.NoKeyError:
// no slipway client ever talks to Temporal in plaintext.
func Options(opts ...Option) (client.Options, error) {
	// The options are setters: applied once for the profile to load, then over what it loaded.
	var pick settings
	for _, opt := range opts {
		opt(&pick)
	}
	prof, err := loadProfile(pick.profile, pick.profileNamedBy)
	if err != nil {
		return client.Options{}, err
	}
	o, err := prof.ToClientOptions(envconfig.ToClientOptionsRequest{})
	if err != nil {
		return client.Options{}, fmt.Errorf("temporal connection settings (TEMPORAL_TLS, ...): %w", err)
	}
	st := settings{Options: o}
	for _, opt := range opts {
		opt(&st)
	}
	o = st.Options
	if o.HostPort == "" {
		o.HostPort = client.DefaultHostPort
	}
	if o.ConnectionOptions.GrpcCompression == nil {
		// Payloads cross sealed (ciphertext does not compress): the SDK's default gzip cost about a
		// tenth of the worker's CPU and the server's to undo it (docs/performance.md).
		o.ConnectionOptions.GrpcCompression = &client.GrpcCompressionNone{}
	}
	// A bearer token for a server with authorization on (TEMPORAL_TLS or the profile's tls decide TLS).
	if err := applyCredentials(&o, prof.TLS != nil, os.Getenv); err != nil {
		return client.Options{}, err
	}
	if o.DataConverter == nil {
		k, err := codec.Load(DevKeyFile())
		if err != nil {
			return client.Options{}, err
		}
		o.DataConverter = codec.DataConverter(k)
	}
	if o.FailureConverter == nil {
		// The SDK's default failure converter stores an error's message, stack and details in the
		// clear: a failed pipeline's record (steps, leftovers) and any secret an error quotes.
		o.FailureConverter = codec.FailureConverter(o.DataConverter)
	}
	// Whatever holds the attestation key signs what it sends; without the key its starts,
	// updates and signals are refused by the worker, so reads still work.
	k, err := st.attest, error(nil)
	if k == nil {
		k, err = attest.Load()
	}
	switch {
	case err == nil:
		actor := ProgramActor()
		if st.actor != nil {
			actor = *st.actor
		}
		o.Interceptors = append(o.Interceptors, attest.ClientInterceptor(k, actor, o.DataConverter))
	case !isNoAttestKey(err):
		return client.Options{}, err
	}
	if o.Namespace == "" {
		o.Namespace = client.DefaultNamespace
	}
	return o, nil
}

// ConfigFile is the Temporal config file the connection reads: TEMPORAL_CONFIG_FILE, else
// temporal.toml under the user's config dir (as the temporal CLI).
func ConfigFile() string {
	if f := os.Getenv("TEMPORAL_CONFIG_FILE"); f != "" {
		return f
	}
	return envconfig.DefaultConfigFilePath()
}

// ProfileNotFoundError: a profile named explicitly is not in the config file. Nothing was dialled.
type ProfileNotFoundError struct {
	Profile, NamedBy, File string
}

func (e *ProfileNotFoundError) Error() string {
	where := e.File
	if _, err := os.Stat(e.File); errors.Is(err, fs.ErrNotExist) {
		where += " (no such file)"
	}
	return fmt.Sprintf("%s: profile %q is not in the Temporal config file %s: add [profile.%s] there (TEMPORAL_CONFIG_FILE names another file)",
		e.NamedBy, e.Profile, where, e.Profile)
}

// kind is Invalid: the setting naming the profile is at fault, and nothing was asked of Temporal.
func (e *ProfileNotFoundError) kind() errkind.Kind   { return errkind.Invalid }
func (e *ProfileNotFoundError) Is(target error) bool { return target == e.kind() }

// loadProfile is the config file's profile name, else TEMPORAL_PROFILE's (or the default), with the
// TEMPORAL_* variables over it.
func loadProfile(name, namedBy string) (envconfig.ClientConfigProfile, error) {
	var prof envconfig.ClientConfigProfile
	if name != "" {
		conf, err := envconfig.LoadClientConfig(envconfig.LoadClientConfigOptions{})
		if err != nil {
			return prof, fmt.Errorf("temporal config file %s: %w", ConfigFile(), err)
		}
		p := conf.Profiles[name]
		switch {
		case p != nil:
			prof = *p
			if err := prof.ApplyEnvVars(nil); err != nil {
				return prof, fmt.Errorf("temporal connection settings (TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, ...): %w", err)
			}
			return prof, nil
		case namedBy != "":
			return prof, &ProfileNotFoundError{Profile: name, NamedBy: namedBy, File: ConfigFile()}
		}
	}
	prof, err := envconfig.LoadClientConfigProfile(envconfig.LoadClientConfigProfileOptions{})
	if err != nil {
		return prof, fmt.Errorf("temporal connection settings (TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TEMPORAL_PROFILE, ...): %w", err)
	}
	return prof, nil
}

func isNoAttestKey(err error) bool {
	var nk *attest.NoKeyError
	return errors.As(err, &nk)
}

// Dial connects using Options.
func Dial(ctx context.Context, taskQueue string, opts ...Option) (*Client, error) {
	o, err := Options(opts...)
	if err != nil {
		return nil, err
	}
	c, err := client.DialContext(ctx, o)
	if err != nil {
		return nil, &UnavailableError{Address: o.HostPort, Err: err}
	}
	sc := New(c, taskQueue, o.Namespace)
	sc.Payloads, sc.Failures = o.DataConverter, o.FailureConverter
	return sc, nil
}

// DialLazy is Dial for a server that must come up while Temporal is down (the webhook server):
// it connects on first use, so each call made during an outage fails on its own.
func DialLazy(taskQueue string, opts ...Option) (*Client, error) {
	o, err := Options(opts...)
	if err != nil {
		return nil, err
	}
	c, err := client.NewLazyClient(o)
	if err != nil {
		return nil, &UnavailableError{Address: o.HostPort, Err: err}
	}
	sc := New(c, taskQueue, o.Namespace)
	sc.Payloads, sc.Failures = o.DataConverter, o.FailureConverter // slipway server reads events and audit for people
	return sc, nil
}

// New wraps an existing Temporal client.
func New(c client.Client, taskQueue, namespace string) *Client {
	if taskQueue == "" {
		taskQueue = contract.DefaultTaskQueue
	}
	return &Client{Temporal: c, TaskQueue: taskQueue, Namespace: namespace}
}

// Close closes the connection.
func (c *Client) Close() { c.Temporal.Close() }
