package httpserve

import (
	"fmt"
	"time"
)

// OptionError: an option's value is out of range.
type OptionError struct {
	Option string
	Reason string
}

func (e *OptionError) Error() string { return e.Option + ": " + e.Reason }

// TLSFileError: the certificate or the key file cannot be read.
type TLSFileError struct {
	Which string // "certificate" or "key"
	Path  string
	Err   error
}

func (e *TLSFileError) Error() string { return fmt.Sprintf("TLS %s file: %v", e.Which, e.Err) }

func (e *TLSFileError) Unwrap() error { return e.Err }

// TLSPairError: both files were read but are not a PEM certificate and its private key.
type TLSPairError struct {
	CertFile, KeyFile string
	Err               error
}

func (e *TLSPairError) Error() string {
	return fmt.Sprintf("TLS certificate %s and key %s: %v", e.CertFile, e.KeyFile, e.Err)
}

func (e *TLSPairError) Unwrap() error { return e.Err }

// GraceExceededError: the shutdown grace ran out with requests still in flight; they were cut off.
type GraceExceededError struct{ Grace time.Duration }

func (e *GraceExceededError) Error() string {
	return fmt.Sprintf("shutdown grace %s ran out with requests still in flight: they were cut off", e.Grace)
}
