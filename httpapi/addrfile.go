package httpapi

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// AddrFileName is the name of the address file, in the directory of the
// ledger file.
const AddrFileName = "http.addr"

// AddrFile is what a running service leaves next to its embedded ledger so
// that the command line can reach it while it holds the ledger file: the
// API's address, the service's process id, the token that stands for a user
// when authentication is on, and the TLS certificate to expect. It is
// written at start, readable by the service's user only (the token is a
// credential), and removed at stop; after a crash (kill -9) it stays until
// the next start, but then the ledger is not locked and the command line
// opens it itself.
type AddrFile struct {
	URL        string `json:"url"`
	PID        int    `json:"pid"`
	Token      string `json:"token,omitempty"`
	CertSHA256 string `json:"cert_sha256,omitempty"`
}

// NewToken returns a random token for an AddrFile.
func NewToken() string {
	b := make([]byte, 32)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// WriteAddrFile writes a in dir, atomically, mode 0600.
func WriteAddrFile(dir string, a AddrFile) error {
	data, err := json.Marshal(a)
	if err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, "."+AddrFileName+".*")
	if err != nil {
		return fmt.Errorf("cannot write the API address file in %s: %w", dir, err)
	}
	_, err = f.Write(append(data, '\n'))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), filepath.Join(dir, AddrFileName))
	}
	if err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("cannot write the API address file in %s: %w", dir, err)
	}
	return nil
}

// ReadAddrFile reads the address file in dir; the error wraps
// os.ErrNotExist when there is none.
func ReadAddrFile(dir string) (AddrFile, error) {
	var a AddrFile
	data, err := os.ReadFile(filepath.Join(dir, AddrFileName))
	if err != nil {
		return a, err
	}
	if err := json.Unmarshal(data, &a); err != nil || a.URL == "" {
		return a, fmt.Errorf("%s: not an address file: expected {\"url\": ...}", filepath.Join(dir, AddrFileName))
	}
	return a, nil
}

// RemoveAddrFile removes the address file in dir if it is still a's (same
// process and token), and any address file when a is zero: at start, the
// file a stopped service left.
func RemoveAddrFile(dir string, a AddrFile) {
	if a != (AddrFile{}) {
		cur, err := ReadAddrFile(dir)
		if err != nil || cur != a {
			return
		}
	}
	os.Remove(filepath.Join(dir, AddrFileName))
}

// Alive reports whether the process that wrote a still runs (it may be
// another process that got the same id after a crash: the caller still
// tries the address).
func (a AddrFile) Alive() bool {
	if a.PID <= 0 {
		return false
	}
	err := syscall.Kill(a.PID, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
