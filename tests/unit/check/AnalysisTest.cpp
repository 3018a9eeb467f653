#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "check/core/Analysis.hpp"
#include "check/core/MpiCollectives.hpp"
#include "check/core/Render.hpp"

using namespace mpidbg::check;

namespace {

// Builders of the front end's items; line numbers stand for source places.
Item at(Item i, unsigned line) {
  i.loc = {"x.c", line, 3};
  return i;
}
Item region(RegionKind k, const char* construct, unsigned line, std::vector<Item> body,
            bool barrierAfter = false) {
  Item i;
  i.kind = Item::Kind::Region;
  i.region = k;
  i.construct = construct;
  i.barrierAfter = barrierAfter;
  i.body = std::move(body);
  return at(std::move(i), line);
}
Item barrier(unsigned line) {
  Item i;
  i.kind = Item::Kind::Barrier;
  return at(std::move(i), line);
}
Item mpi(const char* name, unsigned line, const char* comm = "MPI_COMM_WORLD") {
  Item i;
  i.kind = Item::Kind::MpiCall;
  i.callee = name;
  i.communicator = comm;
  return at(std::move(i), line);
}
Item init(ThreadLevel level, unsigned line = 1) {
  Item i = mpi("MPI_Init_thread", line, "");
  i.initCall = true;
  i.requested = level;
  return i;
}
Item call(const char* key, unsigned line) {
  Item i;
  i.kind = Item::Kind::Call;
  i.callee = key;
  return at(std::move(i), line);
}
ProgramModel program(std::vector<Item> mainBody, std::vector<FunctionModel> more = {}) {
  ProgramModel p;
  p.functions.push_back({"c:@F@main", "main", {"x.c", 1, 1}, std::move(mainBody)});
  for (FunctionModel& f : more) p.functions.push_back(std::move(f));
  return p;
}

struct Seen {
  std::string_view category;
  unsigned line;
  std::optional<ThreadLevel> needed;
  bool operator==(const Seen&) const = default;
};
std::vector<Seen> seen(const CheckReport& r) {
  std::vector<Seen> out;
  for (const Finding& f : r.findings) out.push_back({f.category, f.loc.line, f.needed});
  return out;
}

const auto kLevel = kCategories[0].id;
const auto kConcurrent = kCategories[1].id;
const auto kRank = kCategories[2].id;

struct Case {
  const char* name;
  ProgramModel program;
  ThreadLevel programNeeds;
  std::vector<Seen> expected;
};

}  // namespace

TEST_CASE("analyze: levels and concurrent collectives over OpenMP constructs", "[check]") {
  using enum RegionKind;
  const Case cases[] = {
      {"master after a barrier, FUNNELED asked: compliant",
       program({init(ThreadLevel::Funneled),
                region(Parallel, "parallel", 10,
                       {barrier(11), region(Master, "master", 12, {mpi("MPI_Allreduce", 13)})})}),
       ThreadLevel::Funneled,
       {}},
      {"single asked FUNNELED: needs SERIALIZED",
       program({init(ThreadLevel::Funneled),
                region(Parallel, "parallel", 10,
                       {region(Single, "single", 12, {mpi("MPI_Reduce", 13)}, true)})}),
       ThreadLevel::Serialized,
       {{kLevel, 13, ThreadLevel::Serialized}}},
      {"two single regions with their barrier, SERIALIZED asked: compliant",
       program({init(ThreadLevel::Serialized),
                region(Parallel, "parallel", 10,
                       {region(Single, "single", 11, {mpi("MPI_Reduce", 12)}, true),
                        region(Single, "single", 14, {mpi("MPI_Reduce", 15, "other")}, true)})}),
       ThreadLevel::Serialized,
       {}},
      {"two single nowait regions, SERIALIZED asked: concurrent, MULTIPLE",
       program({init(ThreadLevel::Serialized),
                region(Parallel, "parallel", 10,
                       {region(Single, "single nowait", 11, {mpi("MPI_Reduce", 12)}),
                        region(Single, "single", 14, {mpi("MPI_Reduce", 15, "other")}, true)})}),
       ThreadLevel::Multiple,
       {{kLevel, 12, ThreadLevel::Multiple}, {kLevel, 15, ThreadLevel::Multiple}}},
      {"two single nowait regions on one communicator at MULTIPLE: the error",
       program({init(ThreadLevel::Multiple),
                region(Parallel, "parallel", 10,
                       {region(Single, "single nowait", 11, {mpi("MPI_Bcast", 12, "comm")}),
                        region(Single, "single nowait", 14, {mpi("MPI_Bcast", 15, "comm")})})}),
       ThreadLevel::Multiple,
       {{kConcurrent, 12, std::nullopt}}},
      {"two master regions run on one thread: not concurrent",
       program({init(ThreadLevel::Funneled),
                region(Parallel, "parallel", 10,
                       {region(Master, "master", 11, {mpi("MPI_Bcast", 12)}),
                        region(Master, "master", 14, {mpi("MPI_Bcast", 15)})})}),
       ThreadLevel::Funneled,
       {}},
      {"master and single nowait at the same barrier count: concurrent",
       program({init(ThreadLevel::Serialized),
                region(Parallel, "parallel", 10,
                       {region(Master, "master", 11, {mpi("MPI_Bcast", 12, "a")}),
                        region(Single, "single nowait", 14, {mpi("MPI_Bcast", 15, "b")})})}),
       ThreadLevel::Multiple,
       {{kLevel, 12, ThreadLevel::Multiple}, {kLevel, 15, ThreadLevel::Multiple}}},
      {"one critical name: one thread at a time, SERIALIZED",
       program({init(ThreadLevel::Serialized),
                region(Parallel, "parallel", 10,
                       {region(Critical, "critical", 11, {mpi("MPI_Send", 12)}),
                        region(Critical, "critical", 14, {mpi("MPI_Recv", 15)})})}),
       ThreadLevel::Serialized,
       {}},
      {"every thread of the team on one communicator: MULTIPLE and the error",
       program({init(ThreadLevel::Funneled),
                region(Parallel, "parallel", 10, {barrier(11), mpi("MPI_Allreduce", 12, "comm")})}),
       ThreadLevel::Multiple,
       {{kLevel, 12, ThreadLevel::Multiple}, {kConcurrent, 12, std::nullopt}}},
      {"point to point in a worksharing loop: MULTIPLE, no collective error",
       program({init(ThreadLevel::Serialized),
                region(Parallel, "parallel", 10,
                       {region(Worksharing, "for", 11, {mpi("MPI_Send", 12)}, true)})}),
       ThreadLevel::Multiple,
       {{kLevel, 12, ThreadLevel::Multiple}}},
      {"num_threads(1): no team, SINGLE",
       program({init(ThreadLevel::Single),
                region(Inactive, "parallel", 10,
                       {region(Single, "single", 11, {mpi("MPI_Barrier", 12)}, true)})}),
       ThreadLevel::Single,
       {}},
      {"MPI_Init only: SINGLE asked, master needs FUNNELED",
       program({init(ThreadLevel::Single),
                region(Parallel, "parallel", 10,
                       {region(Master, "master", 11, {mpi("MPI_Barrier", 12)})})}),
       ThreadLevel::Funneled,
       {{kLevel, 12, ThreadLevel::Funneled}}},
  };
  for (const Case& c : cases) {
    INFO(c.name);
    const CheckReport r = analyze(c.program);
    CHECK(r.programNeeds == c.programNeeds);
    CHECK(seen(r) == c.expected);
  }
}

TEST_CASE("analyze: a call from a single region carries its word into the callee", "[check]") {
  using enum RegionKind;
  FunctionModel reduce{"c:@F@reduce", "reduce", {"y.c", 3, 1}, {mpi("MPI_Reduce", 5)}};
  reduce.body[0].loc.file = "y.c";
  const ProgramModel p =
      program({init(ThreadLevel::Funneled), call("c:@F@reduce", 8),
               region(Parallel, "parallel", 10,
                      {region(Single, "single nowait", 11, {call("c:@F@reduce", 12)}),
                       region(Single, "single", 13, {call("c:@F@reduce", 14)}, true)})},
              {reduce});
  const CheckReport r = analyze(p);
  REQUIRE(r.findings.size() ==
          2);  // one site: its level, and the self-concurrency on one communicator
  CHECK(r.findings[0].loc.file == "y.c");
  CHECK(r.findings[0].category == kLevel);
  CHECK(r.findings[0].needed == ThreadLevel::Multiple);
  CHECK(r.findings[0].message ==
        "MPI_Reduce may run concurrently with MPI_Reduce at y.c:5 (omp single nowait at x.c:11 and "
        "omp single at x.c:13 "
        "without a barrier between them, called from x.c:12); needs MPI_THREAD_MULTIPLE, program "
        "asks MPI_THREAD_FUNNELED");
  CHECK(r.findings[1].category == kConcurrent);
  CHECK(r.findings[1].severity == Severity::Error);
  CHECK(r.sites == 2);
}

TEST_CASE("analyze: a barrier in a callee counts in the caller", "[check]") {
  using enum RegionKind;
  FunctionModel sync{"c:@F@sync", "sync", {"x.c", 30, 1}, {barrier(31)}};
  const ProgramModel p =
      program({init(ThreadLevel::Serialized),
               region(Parallel, "parallel", 10,
                      {region(Single, "single nowait", 11, {mpi("MPI_Bcast", 12, "a")}),
                       call("c:@F@sync", 13),
                       region(Single, "single nowait", 14, {mpi("MPI_Bcast", 15, "b")})})},
              {sync});
  CHECK(analyze(p).findings.empty());
}

TEST_CASE("analyze: collectives under rank-dependent conditions, also through a call", "[check]") {
  FunctionModel sync{"c:@F@sync", "sync", {"x.c", 30, 1}, {mpi("MPI_Barrier", 31)}};
  Item guarded = mpi("MPI_Bcast", 12);
  guarded.rankConditions = {{{"x.c", 11, 7}, {"x.c", 5, 3}}};
  Item send = mpi("MPI_Send", 14);  // point to point under the same condition: fine
  send.rankConditions = guarded.rankConditions;
  Item c = call("c:@F@sync", 16);
  c.rankConditions = {{{"x.c", 15, 7}, {"x.c", 5, 3}}};
  const CheckReport r = analyze(program({init(ThreadLevel::Single), guarded, send, c}, {sync}));
  REQUIRE(seen(r) == std::vector<Seen>{{kRank, 12, std::nullopt}, {kRank, 31, std::nullopt}});
  CHECK(r.findings[0].message ==
        "MPI_Bcast may not be called by every rank: the condition at x.c:11 depends on the rank "
        "(MPI_Comm_rank at x.c:5)");
  CHECK(r.findings[1].message ==
        "MPI_Barrier may not be called by every rank: the condition at x.c:15 depends on the rank "
        "(MPI_Comm_rank at x.c:5), "
        "called from x.c:16");
}

TEST_CASE("analyze: without a constant level nothing is compared", "[check]") {
  using enum RegionKind;
  Item i = init(ThreadLevel::Single);
  i.requested.reset();
  const CheckReport r =
      analyze(program({i, region(Parallel, "parallel", 10, {mpi("MPI_Send", 11)})}));
  CHECK(r.findings.empty());
  CHECK(r.requestNotConstant);
  CHECK(r.programNeeds == ThreadLevel::Multiple);
}

TEST_CASE("analyze: a second program's MPI_Init_thread is named, the first level used", "[check]") {
  FunctionModel other{"c:@F@main", "main", {"y.c", 1, 1}, {init(ThreadLevel::Multiple, 4)}};
  other.body[0].loc.file = "y.c";
  const CheckReport r =
      analyze(program({init(ThreadLevel::Funneled, 2), init(ThreadLevel::Funneled, 3)}, {other}));
  CHECK(r.requested == ThreadLevel::Funneled);
  CHECK(r.requestLoc.line == 2);
  REQUIRE(r.otherRequests.size() == 1);
  CHECK(formatLoc(r.otherRequests[0]) == "y.c:4:3");
  CHECK(renderText(r, {"x.c", "y.c"}, {})
            .starts_with("note: y.c:4:3: asks another thread level than x.c:2; the first is used "
                         "for every call (check separate programs "
                         "in separate runs)\n"));
}

TEST_CASE("the collective table", "[check]") {
  CHECK(isCollective("MPI_Allreduce"));
  CHECK(isCollective("MPI_Ineighbor_alltoallw"));
  CHECK_FALSE(isCollective("MPI_Send"));
  CHECK_FALSE(isCollective("MPI_Comm_rank"));
}

TEST_CASE("renderers: text line, JSON fields, SARIF 2.1.0 result", "[check]") {
  using enum RegionKind;
  const CheckReport r =
      analyze(program({init(ThreadLevel::Funneled),
                       region(Parallel, "parallel", 10,
                              {region(Single, "single", 12, {mpi("MPI_Reduce", 13)}, true)})}));
  const std::string text = renderText(r, {"x.c"}, {});
  CHECK(text ==
        "x.c:13:3: warning: MPI_Reduce runs in omp single at x.c:12 (one thread) (parallelism word "
        "PS); needs "
        "MPI_THREAD_SERIALIZED, program asks MPI_THREAD_FUNNELED [mpidbg-thread-level]\n"
        "mpidbg check: 1 file(s), 2 MPI call site(s); program needs MPI_THREAD_SERIALIZED, asks "
        "MPI_THREAD_FUNNELED "
        "(x.c:1); 1 warning(s), 0 error(s)\n");
  const auto j = nlohmann::json::parse(renderJson(r, {"x.c"}, {"y.c: not checked: boom"}));
  CHECK(j["program_needs"] == "MPI_THREAD_SERIALIZED");
  CHECK(j["requested"] == "MPI_THREAD_FUNNELED");
  CHECK(j["problems"][0] == "y.c: not checked: boom");
  REQUIRE(j["findings"].size() == 1);
  CHECK(j["findings"][0]["line"] == 13);
  CHECK(j["findings"][0]["needed"] == "MPI_THREAD_SERIALIZED");
  CHECK(j["findings"][0]["word"] == "PS");
  const auto s = nlohmann::json::parse(renderSarif(r, {"/abs/x.c"}, {}));
  CHECK(s["version"] == "2.1.0");
  const auto& result = s["runs"][0]["results"][0];
  CHECK(result["ruleId"] == "mpidbg-thread-level");
  CHECK(s["runs"][0]["tool"]["driver"]["rules"][result["ruleIndex"].get<int>()]["id"] ==
        "mpidbg-thread-level");
  CHECK(result["level"] == "warning");
  CHECK(result["locations"][0]["physicalLocation"]["region"]["startLine"] == 13);
  CHECK(s["runs"][0]["artifacts"][0]["location"]["uri"] == "file:///abs/x.c");
}
