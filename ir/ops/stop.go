package ops

// Stop is what the long loops of a plan's run poll, between blocks of
// about pollWork element operations, to stop early: a plan run with
// RunUntil returns as soon as Stopped reports true, leaving its output
// partly written (the caller, whose run is cancelled, discards it). A nil
// Stop never stops. The compiled path passes the run's cancellation
// (kiln.Cancel); the evaluator runs plans to the end.
type Stop interface {
	Stopped() bool
}

// pollWork is about how many element operations (multiply-adds,
// comparisons, moves) a plan runs between two polls of its Stop: at the
// generic paths' speed, well under a millisecond.
const pollWork = 1 << 14

// poller polls a Stop once every so many units of a plan's loop, the
// first unit included.
type poller struct {
	stop  Stop
	every int // units between two polls
	left  int // units until the next poll
}

// newPoller polls stop once per pollWork element operations of a loop
// whose units are unitWork operations each.
func newPoller(stop Stop, unitWork int) poller {
	return poller{stop: stop, every: max(1, pollWork/max(unitWork, 1))}
}

// stopped counts one unit and, every so many, polls the Stop.
func (p *poller) stopped() bool {
	if p.stop == nil {
		return false
	}
	if p.left--; p.left > 0 {
		return false
	}
	p.left = p.every
	return p.stop.Stopped()
}
