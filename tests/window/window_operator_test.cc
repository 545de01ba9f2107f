// --early-every: the window operator's processing-time trigger (WindowOperator::
// StartProcessingTime, OnProcessingTime), on a clock the test moves. Expectations derived by
// hand from man/logtide.1, SEMANTICS, "Early records by the wall clock".
#include "window/window_operator.h"

#include <catch2/catch.hpp>

#include "operator_harness.h"

namespace logtide {
namespace {

using V = std::vector<std::string>;

TEST_CASE("early-every: at each multiple of the interval, the pairs changed since their last") {
  OperatorHarness h(Tumbling(10), 0, EmitMode::kFinal, 0, 100);
  h.StartClock(1050);  // first multiple of 100 after 1050: 1100
  h.Add("a", 1);
  h.Add("a", 2);
  h.Add("b", 3);
  h.Advance(3);
  CHECK_FALSE(h.Clock(1099));
  CHECK(h.Take().empty());
  CHECK(h.Clock(1100));
  CHECK(h.Take() == V{"[0,10) a 2 2 rev=0 early", "[0,10) b 1 1 rev=0 early"});
  h.Add("a", 4);
  // Two multiples passed (1200, 1300): one firing; b did not change.
  CHECK(h.Clock(1350));
  CHECK(h.Take() == V{"[0,10) a 3 3 rev=1 early"});
  CHECK_FALSE(h.Clock(1399));  // next at 1400
  CHECK(h.Clock(1400));
  CHECK(h.Take().empty());  // nothing changed
  h.Advance(10);
  CHECK(h.Take() == V{"[0,10) a 3 3 rev=2 final", "[0,10) b 1 1 rev=1 final"});
}

TEST_CASE("early-every: a window past its end is not open, and a key first seen starts at 0") {
  // Final mode with lateness 5: [0,10) is due at 15; from watermark 10 it is not open.
  OperatorHarness h(Tumbling(10), 5, EmitMode::kFinal, 0, 100);
  h.StartClock(0);
  h.Add("a", 1);
  h.Advance(1);
  CHECK(h.Clock(100));
  CHECK(h.Take() == V{"[0,10) a 1 1 rev=0 early"});
  h.Add("a", 12);
  h.Advance(12);
  h.Add("b", 9);  // in [0,10), past its end, not yet late
  CHECK(h.Clock(200));
  CHECK(h.Take() == V{"[10,20) a 1 1 rev=0 early"});
  h.Advance(15);
  CHECK(h.Take() == V{"[0,10) a 1 1 rev=1 final", "[0,10) b 1 1 rev=0 final"});
}

TEST_CASE("early-every on sliding windows: each open window of a changed pane") {
  OperatorHarness h(Sliding(10, 5), 0, EmitMode::kFinal, 0, 100);
  h.StartClock(0);
  h.Add("a", 6);  // in [0,10) and [5,15)
  h.Advance(6);
  CHECK(h.Clock(100));
  CHECK(h.Take() == V{"[0,10) a 1 1 rev=0 early", "[5,15) a 1 1 rev=0 early"});
  h.Add("a", 11);  // in [5,15) and [10,20): [0,10) closes on time, unchanged since rev 0
  h.Advance(11);
  CHECK(h.Take() == V{"[0,10) a 1 1 rev=1 final"});
  CHECK(h.Clock(200));
  CHECK(h.Take() == V{"[5,15) a 2 2 rev=1 early", "[10,20) a 1 1 rev=0 early"});
}

TEST_CASE("early-every on sessions in update mode: a growing session, then on time") {
  OperatorHarness h(Session(5), 0, EmitMode::kUpdate, 0, 100);
  h.StartClock(0);
  h.Add("a", 0);
  h.Advance(0);
  CHECK(h.Clock(100));
  CHECK(h.Take() == V{"[0,5) a 1 1 rev=0 early"});
  h.Add("a", 2);  // the session is [0,7) now
  h.Advance(2);
  CHECK(h.Clock(200));
  CHECK(h.Take() == V{"[0,7) a 2 2 rev=1 early"});
  CHECK(h.Clock(300));
  CHECK(h.Take().empty());
  h.Advance(7);
  CHECK(h.Take() == V{"[0,7) a 2 2 rev=2 final"});
}

TEST_CASE("early-every with --early: both triggers, one revision sequence") {
  // --early 4: early times 4 and 8 of [0,10).
  OperatorHarness h(Tumbling(10), 0, EmitMode::kFinal, 4, 100);
  h.StartClock(0);
  h.Add("a", 1);
  h.Advance(1);
  CHECK(h.Clock(100));
  CHECK(h.Take() == V{"[0,10) a 1 1 rev=0 early"});
  h.Add("a", 4);
  h.Advance(4);  // the early time 4: a changed since its last record
  CHECK(h.Take() == V{"[0,10) a 2 2 rev=1 early"});
  CHECK(h.Clock(200));  // nothing changed since
  CHECK(h.Take().empty());
  h.Add("a", 5);
  CHECK(h.Clock(300));
  CHECK(h.Take() == V{"[0,10) a 3 3 rev=2 early"});
  h.Advance(8);  // the early time 8: nothing changed since the clock's record
  CHECK(h.Take().empty());
  h.Advance(10);
  CHECK(h.Take() == V{"[0,10) a 3 3 rev=3 final"});
}

TEST_CASE("early-every: a clock set back by more than the interval fires at once") {
  OperatorHarness h(Tumbling(10), 0, EmitMode::kFinal, 0, 100);
  h.StartClock(1050);  // due at 1100
  h.Add("a", 1);
  CHECK(h.Clock(500));  // 600 before the trigger: set back
  CHECK(h.Take() == V{"[0,10) a 1 1 rev=0 early"});
  h.Add("a", 2);
  CHECK_FALSE(h.Clock(550));  // next at 600, on the clock as it is now
  CHECK(h.Clock(600));
  CHECK(h.Take() == V{"[0,10) a 2 2 rev=1 early"});
}

TEST_CASE("early-every: a restored operator goes on with the next revision, unchanged keys "
          "written no more") {
  for (bool session : {false, true}) {
    INFO((session ? "session" : "tumbling"));
    const WindowSpec spec = session ? Session(20) : Tumbling(20);
    const std::string w = session ? "[1,21)" : "[0,20)";
    const std::string wb = session ? "[2,22)" : "[0,20)";
    OperatorHarness h(spec, 0, EmitMode::kFinal, 0, 100);
    h.TrackChanges();
    h.StartClock(0);
    h.Add("a", 1);
    h.Add("b", 2);
    h.Advance(2);
    CHECK(h.Clock(100));
    CHECK(h.Take() == V{w + " a 1 1 rev=0 early", wb + " b 1 1 rev=0 early"});
    const OperatorHarness::Saved saved = h.Save();

    OperatorHarness r(spec, 0, EmitMode::kFinal, 0, 100);
    r.TrackChanges();
    REQUIRE(r.Load(saved));
    CHECK_FALSE(r.Clock(5000));  // no trigger before the loop starts
    r.StartClock(5000);
    CHECK(r.Clock(5100));
    CHECK(r.Take().empty());  // nothing changed since the records before the save
    const std::string wa = session ? "[1,23)" : "[0,20)";
    r.Add("a", 3);
    CHECK(r.Clock(5200));
    CHECK(r.Take() == V{wa + " a 2 2 rev=1 early"});
    r.Advance(kPlusInfinity);
    CHECK(r.Take() == V{session ? "[2,22) b 1 1 rev=1 final" : "[0,20) a 2 2 rev=2 final",
                        session ? "[1,23) a 2 2 rev=2 final" : "[0,20) b 1 1 rev=1 final"});
  }
}

}  // namespace
}  // namespace logtide
