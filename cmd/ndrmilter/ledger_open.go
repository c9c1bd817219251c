package main

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"go.uber.org/zap"

	"github.com/ndrmilter/ndrmilter/ledger"
)

// reopenEvery is how often a front end that runs without its ledger tries
// to open it again.
const reopenEvery = 30 * time.Second

// openFrontEndLedger opens the ledger serve or filter runs on. A ledger that
// cannot be opened because its directory or file cannot be written (a
// read-only file system, wrong ownership, a full disk) does not stop the
// front end: it runs without it, says so loudly in the log, /healthz
// answers 503, and mail passes (bounces get "unknown; evidence=ledger-error",
// and outbound records wait in memory for it, bounded). It tries to open it
// again every reopenEvery, and logs when it did. Any other error (the file
// locked by another process, a bad URL) is returned.
func openFrontEndLedger(cfg serveConfig, log *zap.Logger) (ledger.Ledger, error) {
	open := func() (ledger.Ledger, error) {
		return ledger.Open(cfg.Ledger, cfg.Data, ledger.Options{Retention: time.Duration(cfg.Retention)})
	}
	l, err := open()
	if err == nil {
		return l, nil
	}
	if !cannotWrite(err) {
		return nil, err
	}
	log.Error("THE LEDGER CANNOT BE OPENED: running without it. Mail passes, but outbound mail is not recorded "+
		"(its records wait in memory, bounded) and bounces are judged \"unknown\"; /healthz answers 503. "+
		"Make the data directory writable by the service user; the ledger is opened again every 30 s",
		zap.String("ledger", ledgerName(cfg)), zap.Error(err))
	late := &lateLedger{stop: make(chan struct{}), done: make(chan struct{})}
	late.err.Store(errBox{err})
	go late.reopen(open, log)
	return late, nil
}

// cannotWrite reports whether err says a file or directory cannot be written.
func cannotWrite(err error) bool {
	for _, e := range []error{syscall.EROFS, syscall.EACCES, syscall.EPERM, syscall.ENOSPC, syscall.EDQUOT} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

// lateLedger is a ledger that could not be opened yet: every operation
// fails with the reason until reopen opens it, then goes to it.
type lateLedger struct {
	l    atomic.Pointer[ledger.Ledger]
	err  atomic.Value // errBox: why it is not open
	stop chan struct{}
	done chan struct{}
	once sync.Once
}

type errBox struct{ error }

func (d *lateLedger) reopen(open func() (ledger.Ledger, error), log *zap.Logger) {
	defer close(d.done)
	t := time.NewTicker(reopenEvery)
	defer t.Stop()
	for {
		select {
		case <-d.stop:
			return
		case <-t.C:
		}
		l, err := open()
		if err != nil {
			d.err.Store(errBox{err})
			continue
		}
		d.l.Store(&l)
		log.Info("the ledger is open now: outbound mail is recorded and bounces are judged again")
		return
	}
}

// ledger returns the ledger once open, or the error why it is not.
func (d *lateLedger) ledger() (ledger.Ledger, error) {
	if l := d.l.Load(); l != nil {
		return *l, nil
	}
	return nil, fmt.Errorf("the ledger is not open: %w", d.err.Load().(errBox).error)
}

func (d *lateLedger) Put(ctx context.Context, r ledger.Record) error {
	l, err := d.ledger()
	if err != nil {
		return err
	}
	return l.Put(ctx, r)
}

func (d *lateLedger) Merge(ctx context.Context, r ledger.Record) (ledger.Change, error) {
	l, err := d.ledger()
	if err != nil {
		return ledger.ChangeNone, err
	}
	return l.Merge(ctx, r)
}

func (d *lateLedger) ByMessageID(ctx context.Context, id string) (ledger.Record, error) {
	l, err := d.ledger()
	if err != nil {
		return ledger.Record{}, err
	}
	return l.ByMessageID(ctx, id)
}

func (d *lateLedger) ByQueueID(ctx context.Context, id string) (ledger.Record, error) {
	l, err := d.ledger()
	if err != nil {
		return ledger.Record{}, err
	}
	return l.ByQueueID(ctx, id)
}

func (d *lateLedger) SentTo(ctx context.Context, sender, recipient string) (bool, error) {
	l, err := d.ledger()
	if err != nil {
		return false, err
	}
	return l.SentTo(ctx, sender, recipient)
}

func (d *lateLedger) LastSent(ctx context.Context, sender string) (time.Time, error) {
	l, err := d.ledger()
	if err != nil {
		return time.Time{}, err
	}
	return l.LastSent(ctx, sender)
}

func (d *lateLedger) Since(ctx context.Context) (time.Time, error) {
	l, err := d.ledger()
	if err != nil {
		return time.Time{}, err
	}
	return l.Since(ctx)
}

func (d *lateLedger) Stats(ctx context.Context) (ledger.Stats, error) {
	l, err := d.ledger()
	if err != nil {
		return ledger.Stats{}, err
	}
	return l.Stats(ctx)
}

// Close stops the reopening and closes the ledger if it was opened.
func (d *lateLedger) Close() error {
	d.once.Do(func() { close(d.stop) })
	<-d.done
	if l := d.l.Load(); l != nil {
		return (*l).Close()
	}
	return nil
}
