#include "engine/checkpointer.h"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>

#include "time/clock.h"

namespace logtide {
namespace {

// A component holding one string; it logs the order of Save and Load calls. As the "windows"
// component it is the window log's writer too (Base WindowLogComponent).
template <typename Base>
class FakeOf final : public Base {
 public:
  FakeOf(std::string name, uint32_t version, std::vector<std::string>* calls)
      : name_(std::move(name)), version_(version), calls_(calls) {}
  std::string_view section() const override { return name_; }
  uint32_t version() const override { return version_; }
  bool Reads(uint32_t v) const override {
    return v == version_ || (reads_from != 0 && v >= reads_from && v < version_);
  }
  Status Save(std::string* data) {
    calls_->push_back("save " + name_);
    *data = value;
    return Status::Ok();
  }
  Status Save(std::string* data, std::vector<StateOp>* log, bool all) {
    log->push_back(StateOp{StateOp::kPut, all ? "all" : "k", value});
    return Save(data);
  }
  Status Load(std::string_view data, uint32_t version) {
    calls_->push_back("load " + name_);
    loaded_version = version;
    if (data == "damaged") return Status::Corruption("it does not decode");
    value = std::string(data);
    return Status::Ok();
  }
  Status Load(std::string_view data, uint32_t version, RowSource* rows) {
    for (RowSource::Row row; rows->Next(&row);) ++rows_seen;
    return Load(data, version);
  }
  // The window log's facts (nothing is open; the watermark is where no event came).
  size_t recorded_changes() const { return 0; }
  size_t open_entries() const { return 0; }
  size_t pending_timers() const { return 0; }
  int64_t watermark() const { return INT64_MIN; }
  std::string value;
  size_t rows_seen = 0;
  uint32_t reads_from = 0;  // the oldest older version Load reads; 0: none
  uint32_t loaded_version = 0;

 private:
  std::string name_;
  uint32_t version_;
  std::vector<std::string>* calls_;
};
using Fake = FakeOf<CheckpointComponent>;
using FakeWindows = FakeOf<WindowLogComponent>;

std::string TempPath() {
  char name[] = "/tmp/logtide_ckpt_XXXXXX";
  int fd = mkstemp(name);
  REQUIRE(fd >= 0);
  close(fd);
  std::remove(name);
  return name;
}

void Cleanup(const std::string& p) {
  for (const char* suffix : {"", "-wal", "-shm"}) std::remove((p + suffix).c_str());
}

// Commits a checkpoint of components a (version 1) and windows (version 1), with values.
void Write(const std::string& path, const std::string& a_value) {
  std::vector<std::string> calls;
  std::unique_ptr<StateStore> store;
  REQUIRE(StateStore::Open(path, false, &store).ok());
  REQUIRE(store->CheckQuery("q").ok());
  Fake a("a", 1, &calls);
  FakeWindows w("windows", 1, &calls);
  a.value = a_value;
  w.value = "rows";
  Checkpointer cp(store.get());
  cp.Add(&a);
  cp.Add(&w);
  Checkpoint c;
  c.checkpoints = 1;
  REQUIRE(cp.Commit(&c).ok());
  CHECK(calls == std::vector<std::string>{"save a", "save windows"});
  CHECK(c.window_ops.size() == 1);
}

Status Read(const std::string& path, uint32_t windows_version, std::vector<std::string>* calls,
            std::string* a_value = nullptr, uint32_t windows_reads_from = 0,
            uint32_t* windows_loaded = nullptr) {
  std::unique_ptr<StateStore> store;
  Status s = StateStore::Open(path, false, &store);
  if (!s.ok()) return s;
  Checkpoint c;
  if (!(s = store->Load(&c)).ok()) return s;
  Fake a("a", 1, calls);
  FakeWindows w("windows", windows_version, calls);
  w.reads_from = windows_reads_from;
  Checkpointer cp(store.get());
  cp.Add(&a);
  cp.Add(&w);
  s = cp.Restore(c);
  if (a_value != nullptr) *a_value = a.value;
  if (s.ok()) CHECK(w.rows_seen == 1);
  if (windows_loaded != nullptr) *windows_loaded = w.loaded_version;
  return s;
}

TEST_CASE("the checkpointer saves and restores every component in the order added") {
  const std::string path = TempPath();
  Write(path, "hello");
  std::vector<std::string> calls;
  std::string a;
  REQUIRE(Read(path, 1, &calls, &a).ok());
  CHECK(calls == std::vector<std::string>{"load a", "load windows"});
  CHECK(a == "hello");
  Cleanup(path);
}

TEST_CASE("the window log's component is restored last: a refusal before it reads no row") {
  for (const char* value : {"hello", "damaged"}) {
    const std::string path = TempPath();
    Write(path, value);
    std::vector<std::string> calls;
    std::unique_ptr<StateStore> store;
    REQUIRE(StateStore::Open(path, false, &store).ok());
    Checkpoint c;
    REQUIRE(store->Load(&c).ok());
    FakeWindows w("windows", 1, &calls);
    Fake a("a", 1, &calls);
    Checkpointer cp(store.get());
    cp.Add(&w);  // added first, restored last
    cp.Add(&a);
    const Status s = cp.Restore(c);
    if (std::string_view(value) == "hello") {
      CHECK(s.ok());
      CHECK(calls == std::vector<std::string>{"load a", "load windows"});
      CHECK(w.rows_seen == 1);
    } else {
      CHECK(s.code() == Status::Code::kCorruption);
      CHECK(calls == std::vector<std::string>{"load a"});
      CHECK(w.rows_seen == 0);
    }
    store.reset();
    Cleanup(path);
  }
}

TEST_CASE("a section in another format is refused as another version's, before any load") {
  const std::string path = TempPath();
  Write(path, "hello");
  std::vector<std::string> calls;
  Status s = Read(path, 2, &calls);
  CHECK(s.code() == Status::Code::kRefused);
  CHECK_THAT(s.message(), Catch::Contains("another version of logtide") &&
                              Catch::Contains("one older than the first release") &&
                              Catch::Contains("\"windows\" section has format 1") &&
                              Catch::Contains("reads formats up to 2"));
  CHECK(calls.empty());
  Cleanup(path);
}

TEST_CASE("a section in an older format the component reads is loaded, told its version") {
  const std::string path = TempPath();
  Write(path, "hello");
  std::vector<std::string> calls;
  std::string a;
  uint32_t loaded = 0;
  // The windows section was saved in version 1; this component writes 3 and reads 2 and 1.
  REQUIRE(Read(path, 3, &calls, &a, 1, &loaded).ok());
  CHECK(calls == std::vector<std::string>{"load a", "load windows"});
  CHECK(a == "hello");
  CHECK(loaded == 1);
  // One that reads only 2 and 3 refuses it, before any load.
  calls.clear();
  Status s = Read(path, 3, &calls, nullptr, 2);
  CHECK(s.code() == Status::Code::kRefused);
  CHECK_THAT(s.message(), Catch::Contains("\"windows\" section has format 1"));
  CHECK(calls.empty());
  Cleanup(path);
}

TEST_CASE("a section no component knows is refused as another version's") {
  const std::string path = TempPath();
  Write(path, "hello");
  std::vector<std::string> calls;
  std::unique_ptr<StateStore> store;
  REQUIRE(StateStore::Open(path, false, &store).ok());
  Checkpoint c;
  REQUIRE(store->Load(&c).ok());
  Fake a("a", 1, &calls);  // no component for "windows"
  Checkpointer cp(store.get());
  cp.Add(&a);
  Status s = cp.Restore(c);
  CHECK(s.code() == Status::Code::kRefused);
  CHECK_THAT(s.message(), Catch::Contains("it has a \"windows\" section"));
  CHECK(calls.empty());
  store.reset();
  Cleanup(path);
}

TEST_CASE("a damaged section is refused as damaged, naming it") {
  const std::string path = TempPath();
  Write(path, "damaged");
  std::vector<std::string> calls;
  Status s = Read(path, 1, &calls);
  CHECK(s.code() == Status::Code::kCorruption);
  CHECK_THAT(s.message(), Catch::Contains("its \"a\" section is damaged (it does not decode)"));
  Cleanup(path);
}

class FixedClock final : public Clock {
 public:
  Nanos Now() const override { return now; }
  Nanos now = 0;
};

TEST_CASE("a timed checkpoint is due an interval after the last one; a clock set back holds none back") {
  const Nanos s = kNanosPerSecond;
  EngineConfig config;
  config.checkpoint_interval = 5 * s;
  FixedClock clock;
  clock.now = 1000 * s;
  CheckpointDeps deps{};
  deps.clock = &clock;
  Checkpointer c(nullptr, &config, deps);
  c.Start();  // the interval counts from here
  CHECK(c.UntilDue(1000 * s) == 5 * s);
  CHECK(c.UntilDue(1003 * s) == 2 * s);
  CHECK(c.UntilDue(1005 * s) == 0);
  CHECK(c.UntilDue(1100 * s) == 0);
  // The clock set back an hour: due at once, not in an hour and 5 s.
  CHECK(c.UntilDue(1000 * s - 3600 * s) == 0);
  // No lines since the last checkpoint: the timer takes none (and so needs no store).
  CHECK(c.OnTimer(1100 * s).ok());
  CHECK(c.checkpoints() == 0);
}

}  // namespace
}  // namespace logtide
