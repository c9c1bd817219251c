package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"

	"go.uber.org/zap"
	"go.uber.org/zap/buffer"
	"go.uber.org/zap/zapcore"
)

// Journald priorities (sd-daemon(3), the syslog levels of RFC 5424) of the
// zap levels. journald reads a "<N>" prefix on each line a service writes
// to standard error as the line's priority, so that "journalctl -p err"
// shows the errors and "-p warning" the warnings too.
const (
	priorityCrit    = 2
	priorityErr     = 3
	priorityWarning = 4
	priorityInfo    = 6
	priorityDebug   = 7
)

// journalPriority is the journald priority of a log level.
func journalPriority(l zapcore.Level) int {
	switch {
	case l >= zapcore.DPanicLevel:
		return priorityCrit
	case l >= zapcore.ErrorLevel:
		return priorityErr
	case l >= zapcore.WarnLevel:
		return priorityWarning
	case l >= zapcore.InfoLevel:
		return priorityInfo
	}
	return priorityDebug
}

// priorityEncoder prefixes every entry with its journald priority.
type priorityEncoder struct{ zapcore.Encoder }

var priorityBuffers = buffer.NewPool()

func (e priorityEncoder) Clone() zapcore.Encoder { return priorityEncoder{e.Encoder.Clone()} }

func (e priorityEncoder) EncodeEntry(ent zapcore.Entry, fields []zapcore.Field) (*buffer.Buffer, error) {
	line, err := e.Encoder.EncodeEntry(ent, fields)
	if err != nil {
		return nil, err
	}
	out := priorityBuffers.Get()
	out.AppendByte('<')
	out.AppendInt(int64(journalPriority(ent.Level)))
	out.AppendByte('>')
	out.Write(line.Bytes())
	line.Free()
	return out, nil
}

// newLogger is serve's logger: one JSON object a line on w, each line
// prefixed with its journald priority when prefix is set. Stack traces are
// left out: an admin reads the message, and a crash prints its own.
func newLogger(w io.Writer, level zap.AtomicLevel, prefix bool) *zap.Logger {
	ec := zap.NewProductionEncoderConfig()
	ec.EncodeTime = zapcore.ISO8601TimeEncoder
	var enc zapcore.Encoder = zapcore.NewJSONEncoder(ec)
	if prefix {
		enc = priorityEncoder{enc}
	}
	// One line per bounce, always: no sampling.
	return zap.New(zapcore.NewCore(enc, zapcore.AddSync(w), level), zap.ErrorOutput(zapcore.AddSync(w)))
}

// stderrIsJournal reports whether standard error is connected to the
// systemd journal: systemd sets JOURNAL_STREAM to the device and inode
// numbers of that stream ("DEV:INODE", systemd.exec(5)), and they must
// match the file descriptor (a child that inherited the variable but
// writes elsewhere is not on the journal).
func stderrIsJournal(stderr *os.File) bool {
	js := os.Getenv("JOURNAL_STREAM")
	if js == "" || stderr == nil {
		return false
	}
	var st syscall.Stat_t
	if err := syscall.Fstat(int(stderr.Fd()), &st); err != nil {
		return false
	}
	return strings.TrimSpace(js) == fmt.Sprintf("%d:%d", uint64(st.Dev), uint64(st.Ino))
}
