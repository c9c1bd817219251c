package main

// The exit status of every subcommand. One table for all, so that a script
// can tell "no" from "broken" the same way whatever it ran; exitCodes below
// documents it in the usage text, the man page and the README.
const (
	// exitOK: done, and the answer (if a question was asked) is yes.
	exitOK = 0
	// exitNo: the answer is no, or part of the work could not be done.
	exitNo = 1
	// exitUsage: the command line is wrong.
	exitUsage = 2
	// exitLedger: the ledger cannot be opened or used.
	exitLedger = 3
	// exitConfig: the configuration or a rules file is rejected.
	exitConfig = 4
	// exitListen: serve cannot open a socket.
	exitListen = 5
)

// exitCode is one line of an exit status table.
type exitCode struct {
	code    int
	meaning string
}

// exitCodes is the exit status table every command follows; each command
// documents what each status means for it (subcommand.exits).
var exitCodes = []exitCode{
	{exitOK, "done (and the answer, where a question was asked, is yes)"},
	{exitNo, "the answer is no (not found, not valid), or part of the work could not be done"},
	{exitUsage, "usage: an unknown command or flag, a missing or extra argument"},
	{exitLedger, "the ledger is unavailable: it cannot be opened (the bbolt file is locked by a running serve, " +
		"its directory cannot be written) or an operation on it failed"},
	{exitConfig, "the configuration or a rules file is rejected"},
	{exitListen, "serve cannot open its milter socket or its HTTP listener"},
}
