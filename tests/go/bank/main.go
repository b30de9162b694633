// A toy bank for `capture go`: a few goroutines transfer money between the
// accounts of one bank under its mutex, and the bank logs every transfer it
// applies, one line each, to stdout.  With -procs N the first process also
// runs N more copies of itself, one after the other started, each its own
// bank.  capture go traces it from tests/go/bank.probes alone; the test
// checks the events against these log lines.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
)

type Account struct {
	ID      int64
	Balance int64
	Owner   string
}

type Transfer struct {
	ID     int64
	From   int32
	To     int32
	Amount int64
	Fee    *int64 // nil: no fee (like a proto2 optional field)
}

// Report is too big for the argument registers: Go passes it on the stack.
type Report struct {
	Proc, Transfers, Applied, Refused int64
	Balances                          [8]int64
}

type Bank struct {
	mu       sync.Mutex
	proc     int
	accounts []Account
	applied  int64
	refused  int64
}

// canPay is small enough to be inlined: the test's spec that probes it is
// refused.
func (a *Account) canPay(amount int64) bool {
	return a.Balance >= amount
}

// apply moves the money if the payer has it; called with b.mu held, so
// the probes see the transfers in the order of the log.
//
//go:noinline
func (b *Bank) apply(t *Transfer) bool {
	from, to := &b.accounts[t.From], &b.accounts[t.To]
	ok := from.canPay(t.Amount)
	if ok {
		from.Balance -= t.Amount
		to.Balance += t.Amount
		b.applied++
	} else {
		b.refused++
	}
	b.log(t, ok)
	return ok
}

func (b *Bank) log(t *Transfer, ok bool) {
	var bal []string
	for _, a := range b.accounts {
		bal = append(bal, fmt.Sprint(a.Balance))
	}
	fee := "none"
	if t.Fee != nil {
		fee = fmt.Sprint(*t.Fee)
	}
	fmt.Printf("proc %d transfer %d from %d to %d amount %d fee %s ok %v balances %s applied %d\n",
		b.proc, t.ID, t.From, t.To, t.Amount, fee, ok, strings.Join(bal, ","), b.applied)
}

// report logs the bank's totals at the end; its arguments are a struct on
// the stack and a slice in registers.
//
//go:noinline
func (b *Bank) report(r Report, owners []string) (total int64) {
	for _, x := range r.Balances {
		total += x
	}
	fmt.Printf("proc %d report applied %d refused %d first %d owners %d name1 %d total %d\n",
		r.Proc, r.Applied, r.Refused, r.Balances[0], len(owners), len(owners[1]), total)
	return total
}

func (b *Bank) transfer(t *Transfer) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.apply(t)
}

// A worker's transfers follow from its number alone (a linear congruential
// sequence), whatever the schedule.  With turns, worker w makes its
// transfers only when it holds the token turns[w], and hands it to the
// next worker after each: a fixed schedule.
func worker(b *Bank, w, n int, wg *sync.WaitGroup, turns []chan struct{}) {
	defer wg.Done()
	x := uint64(w)*2654435761 + uint64(b.proc)*40503 + 1
	for i := 0; i < n; i++ {
		if turns != nil {
			<-turns[w]
		}
		x = x*6364136223846793005 + 1442695040888963407
		k := int32(len(b.accounts))
		t := &Transfer{
			ID:     int64(w*1000 + i),
			From:   int32((x >> 33) % uint64(k)),
			To:     int32((x >> 17) % uint64(k)),
			Amount: int64((x >> 45) % 70),
		}
		if t.Amount > 50 {
			fee := t.Amount / 10
			t.Fee = &fee
		}
		b.transfer(t)
		if turns != nil {
			turns[(w+1)%len(turns)] <- struct{}{}
		}
	}
}

func run(proc, accounts, workers, transfers int, turn bool) {
	b := &Bank{proc: proc, accounts: make([]Account, accounts)}
	for i := range b.accounts {
		b.accounts[i] = Account{ID: int64(i), Balance: 100, Owner: fmt.Sprint("owner", i)}
	}
	var wg sync.WaitGroup
	var turns []chan struct{}
	if turn {
		for w := 0; w < workers; w++ {
			turns = append(turns, make(chan struct{}, 1))
		}
		turns[0] <- struct{}{}
	}
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go worker(b, w, transfers, &wg, turns)
	}
	wg.Wait()
	r := Report{Proc: int64(proc), Transfers: int64(workers * transfers),
		Applied: b.applied, Refused: b.refused}
	var owners []string
	for i, a := range b.accounts {
		r.Balances[i] = a.Balance
		owners = append(owners, a.Owner)
	}
	b.report(r, owners)
}

func main() {
	accounts := flag.Int("accounts", 4, "accounts in the bank")
	workers := flag.Int("workers", 3, "goroutines making transfers")
	transfers := flag.Int("transfers", 20, "transfers per goroutine")
	procs := flag.Int("procs", 0, "copies of this program to run after this one")
	proc := flag.Int("proc", 0, "this process's number (set for the copies)")
	turns := flag.Bool("turns", false, "workers take turns, a transfer each: a fixed schedule")
	flag.Parse()
	if *accounts < 2 || *accounts > 8 {
		fmt.Fprintln(os.Stderr, "bank: -accounts must be 2..8")
		os.Exit(2)
	}
	run(*proc, *accounts, *workers, *transfers, *turns)
	for p := 1; p <= *procs; p++ {
		c := exec.Command(os.Args[0], "-proc", fmt.Sprint(p),
			"-accounts", fmt.Sprint(*accounts), "-workers", fmt.Sprint(*workers),
			"-transfers", fmt.Sprint(*transfers), fmt.Sprintf("-turns=%v", *turns))
		c.Stdout, c.Stderr = os.Stdout, os.Stderr
		if err := c.Run(); err != nil {
			fmt.Fprintln(os.Stderr, "bank:", err)
			os.Exit(1)
		}
	}
}
