// --idle-timeout in the read loop: when the input waited on has been quiet for the timeout it
// stops holding the watermark back; an idle input with lines ready again rejoins; while every
// unfinished input is idle, event time moves with the wall clock (watermark/idleness.h holds
// the quiet-since times and the rules; this class applies them to the loop's inputs at the
// times the loop's tick gives it).
#pragma once

#include <vector>

#include "engine/event_time.h"
#include "time/timestamp.h"
#include "watermark/idleness.h"

namespace logtide {

class ParsePool;

class IdleInputs {
 public:
  // REQUIRES: all outlive this.
  IdleInputs(Idleness* idleness, EventTime* time) : idleness_(idleness), time_(time) {}

  bool enabled() const { return idleness_->enabled(); }
  Idleness& idleness() { return *idleness_; }

  // Input `input` produced a line: it is not idle (its time is taken at the next Settle).
  void LineRead(int input) {
    idleness_->Touch(input);
    if (time_->tracker().idle(input)) time_->Rejoin(input);
  }

  // Idle inputs with lines ready in `pool` hold the watermark back again, quiet from `now`.
  // Returns whether one did.
  bool Rejoin(ParsePool* pool, Nanos now);

  // The loop waits at `now` on input `waiting_on` (-1: on any); `done` says which inputs were
  // read to their end. Settles the quiet times, makes the waited input idle once it has been
  // quiet for the timeout, and moves event time with the wall clock while all are idle.
  // Returns false when the loop should stop waiting on `waiting_on` and pick again: it went
  // idle, or an idle input has lines ready, while another input may be read.
  bool WhileWaiting(ParsePool* pool, int waiting_on, const std::vector<bool>& done, Nanos now);

  // The end of a --hold run at `now`: the inputs at their end that have been quiet for the
  // timeout (in this run and the ones before) hold nothing back.
  void AtHoldEnd(Nanos now);

 private:
  // While every unfinished input is idle: event time moves at wall-clock speed.
  void WallClockProgress(Nanos now);

  Idleness* idleness_;
  EventTime* time_;
};

}  // namespace logtide
