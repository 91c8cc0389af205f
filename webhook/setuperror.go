package webhook

import (
	"errors"
	"fmt"
	"net"
	"syscall"
)

// Setting names the part of a Config that Run could not use before serving.
type Setting int

// The settings a SetupError names.
const (
	// SettingListener is BindAddress and Port.
	SettingListener Setting = iota + 1
	// SettingHealthProbeAddress is HealthProbeAddress.
	SettingHealthProbeAddress
	// SettingMetricsAddress is MetricsAddress.
	SettingMetricsAddress
	// SettingServingCertificate is CertFile and KeyFile.
	SettingServingCertificate
	// SettingCertDir is CertDir: its pair, or generating one into it.
	SettingCertDir
	// SettingClientCA is ClientCAFile.
	SettingClientCA
)

// SetupError is an error of Run before anything serves, with the Setting
// at fault, so that a command line can name its flag. Its message names the
// address or files and what to do.
type SetupError struct {
	Setting Setting
	Err     error
}

func (e *SetupError) Error() string { return e.Err.Error() }
func (e *SetupError) Unwrap() error { return e.Err }

func setupError(s Setting, format string, args ...any) error {
	return &SetupError{Setting: s, Err: fmt.Errorf(format, args...)}
}

// listen binds addr, explaining a failure.
func listen(s Setting, what, addr string) (net.Listener, error) {
	ln, err := net.Listen("tcp", addr)
	if err == nil {
		return ln, nil
	}
	hint := ""
	switch {
	case errors.Is(err, syscall.EADDRINUSE):
		hint = ": another process listens on that port; stop it or choose another port"
	case errors.Is(err, syscall.EACCES):
		hint = ": a port below 1024 needs the CAP_NET_BIND_SERVICE capability; choose a port above 1023"
	case errors.Is(err, syscall.EADDRNOTAVAIL):
		hint = ": no network interface of this host has that address"
	}
	return nil, setupError(s, "binding the %s to %s: %w%s", what, addr, err, hint)
}
