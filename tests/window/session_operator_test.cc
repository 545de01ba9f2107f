#include "window/session_operator.h"

#include <catch2/catch.hpp>

#include "operator_harness.h"

namespace logtide {
namespace {

using V = std::vector<std::string>;

TEST_CASE("session: events at most GAP apart share a session [first, last + gap)") {
  OperatorHarness h(Session(10), 0, EmitMode::kFinal);
  h.Add("u", 0);
  h.Add("u", 10);  // touches [0,10): same session
  h.Add("u", 25);  // 15 after the last event: a new session
  h.Add("v", 3);
  h.Advance(kPlusInfinity);
  CHECK(h.Take() == V{"[3,13) v 1 1", "[0,20) u 2 2", "[25,35) u 1 1"});
}

TEST_CASE("session fires when the watermark reaches last event + gap") {
  OperatorHarness h(Session(10), 0, EmitMode::kFinal);
  h.Add("u", 5);
  h.Advance(14);
  CHECK(h.Take().empty());
  h.Advance(15);
  CHECK(h.Take() == V{"[5,15) u 1 1"});
}

TEST_CASE("a late event that bridges two sessions merges them into one") {
  OperatorHarness h(Session(10), 20, EmitMode::kFinal);
  h.Add("u", 0, 1);
  h.Add("u", 20, 2);
  h.Advance(12);             // [0,10) has ended but is within lateness
  CHECK(h.Add("u", 10, 4));  // [10,20) touches both
  h.Advance(kPlusInfinity);
  CHECK(h.Take() == V{"[0,30) u 3 7"});
  CHECK(h.open() == 0);
  CHECK(h.keys() == 0);
}

TEST_CASE("session lateness is judged on the session the event would merge into") {
  OperatorHarness h(Session(10), 0, EmitMode::kFinal);
  h.Add("u", 10);
  h.Add("u", 18);  // session [10,28)
  h.Advance(20);
  // t=9 alone would be [9,19): ended at 20. But it touches [10,28), which is open.
  CHECK(h.Add("u", 9));
  // t=2 alone is [2,12), which overlaps [10,28): accepted, the session grows to [2,28).
  CHECK(h.Add("u", 2));
  // t=-20 alone is [-20,-10): ended at 20, and touches nothing open: late.
  CHECK_FALSE(h.Add("u", -20));
  h.Advance(kPlusInfinity);
  CHECK(h.Take() == V{"[2,28) u 4 4"});
}

// In final mode a session has one timer at a time: growing does not set another, and the timer
// that goes off before the session's end is set again for it.
TEST_CASE("final mode: a session that grows past its first timer fires once, at its last end") {
  OperatorHarness h(Session(10), 5, EmitMode::kFinal);
  h.Add("u", 0);  // [0,10): due at 15
  h.Add("u", 8);  // [0,18)
  h.Advance(14);
  h.Add("u", 16);  // [0,26): due at 31
  h.Add("v", 20);  // [20,30): due at 35
  h.Advance(15);   // u's first timer goes off: nothing is due yet
  CHECK(h.Take().empty());
  h.Advance(30);
  CHECK(h.Take().empty());
  h.Advance(31);
  CHECK(h.Take() == V{"[0,26) u 3 3"});
  h.Advance(34);
  CHECK(h.Take().empty());
  h.Advance(35);
  CHECK(h.Take() == V{"[20,30) v 1 1"});
  CHECK(h.open() == 0);
  CHECK(h.keys() == 0);
}

TEST_CASE("final mode: a session whose start moves earlier still fires, once") {
  OperatorHarness h(Session(10), 5, EmitMode::kFinal);
  h.Add("u", 10);  // [10,20): its timer names start 10
  h.Advance(12);
  CHECK(h.Add("u", 4));  // [4,20): the start moves
  h.Add("u", 30);        // [30,40), a second session
  CHECK(h.Add("u", 1));  // [1,20): due at 25
  h.Advance(24);
  CHECK(h.Take().empty());
  h.Advance(25);
  CHECK(h.Take() == V{"[1,20) u 3 3"});
  h.Advance(kPlusInfinity);
  CHECK(h.Take() == V{"[30,40) u 1 1"});
  CHECK(h.open() == 0);
}

TEST_CASE("update mode: a late event into an emitted session emits its next revision") {
  OperatorHarness h(Session(10), 30, EmitMode::kUpdate);
  h.Add("u", 0);
  h.Advance(10);
  CHECK(h.Take() == V{"[0,10) u 1 1 rev=0"});
  h.Advance(20);
  CHECK(h.Add("u", 5));  // grows to [0,15), still complete at 20: revision 1 now
  CHECK(h.Take() == V{"[0,15) u 2 2 rev=1 late"});
  CHECK(h.Add("u", 14));  // grows to [0,24), past the watermark: reopened, fires again at 24
  CHECK(h.Take().empty());
  h.Advance(24);
  CHECK(h.Take() == V{"[0,24) u 3 3 rev=2"});
  h.Advance(54);  // 24 + lateness 30: closed, then dropped
  CHECK(h.Take() == V{"[0,24) u 3 3 rev=3 late final"});
  CHECK(h.open() == 0);
  CHECK_FALSE(h.Add("u", 10));  // [10,20) alone is late
}

TEST_CASE("update mode: a new complete session gets revision 0 at once") {
  OperatorHarness h(Session(10), 30, EmitMode::kUpdate);
  h.Add("u", 100);
  h.Advance(100);
  CHECK_FALSE(h.Add("v", 50));  // [50,60): 60 + 30 <= 100, late
  CHECK(h.Add("v", 75));        // [75,85) ended at watermark 100, but 85 + 30 > 100
  CHECK(h.Take() == V{"[75,85) v 1 1 rev=0 late"});
}

}  // namespace
}  // namespace logtide

namespace logtide {
namespace {

TEST_CASE("early on sessions: the grid from the session's start, moved by a merge") {
  OperatorHarness h(Session(10), 0, EmitMode::kFinal, 4);
  h.Add("u", 0);  // [0,10)
  h.Advance(4);
  CHECK(h.Take() == V{"[0,10) u 1 1 rev=0 early"});
  h.Add("u", 6);  // [0,16)
  h.Advance(9);   // 8
  CHECK(h.Take() == V{"[0,16) u 2 2 rev=1 early"});
  h.Advance(13);  // 12: unchanged
  CHECK(h.Take().empty());
  h.Add("u", 20);  // [20,30), its grid from 20
  h.Add("u", 15);  // [15,25) joins both: [0,30), the grid from 0 again
  h.Advance(17);   // 16
  CHECK(h.Take() == V{"[0,30) u 4 4 rev=2 early"});
  h.Advance(40);  // 20 and the end at once: the session fires
  CHECK(h.Take() == V{"[0,30) u 4 4 rev=3 final"});
  CHECK(h.open() == 0);
}

TEST_CASE("early on sessions in update mode: closed after lateness") {
  OperatorHarness h(Session(10), 5, EmitMode::kUpdate, 5);
  h.Add("u", 0);
  h.Advance(6);
  CHECK(h.Take() == V{"[0,10) u 1 1 rev=0 early"});
  h.Advance(10);
  CHECK(h.Take() == V{"[0,10) u 1 1 rev=1"});
  CHECK(h.Add("u", 0));  // inside the complete session: a late record at once
  CHECK(h.Take() == V{"[0,10) u 2 2 rev=2 late"});
  h.Advance(15);
  CHECK(h.Take() == V{"[0,10) u 2 2 rev=3 late final"});
  CHECK(h.open() == 0);
}

}  // namespace
}  // namespace logtide
