// The only translation unit that includes Clang's headers (they are heavy:
// keep it that way, check/ compiles in one pass over them).
#include "check/clang/Extractor.hpp"

#include <clang/AST/ASTConsumer.h>
#include <clang/AST/ASTContext.h>
#include <clang/AST/Expr.h>
#include <clang/AST/OpenMPClause.h>
#include <clang/AST/StmtOpenMP.h>
#include <clang/Basic/OpenMPKinds.h>
#include <clang/Frontend/CompilerInstance.h>
#include <clang/Frontend/FrontendAction.h>
#include <clang/Index/USRGeneration.h>
#include <clang/Lex/Lexer.h>
#include <clang/Tooling/ArgumentsAdjusters.h>
#include <clang/Tooling/CompilationDatabase.h>
#include <clang/Tooling/Tooling.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

#ifndef MPIDBG_CLANG_RESOURCE_DIR
#define MPIDBG_CLANG_RESOURCE_DIR ""
#endif

namespace mpidbg::check {

namespace {

using namespace clang;

/// A file's path as diagnostics show it: relative to `userDir` (the current
/// directory of the check; ClangTool runs each file in its compile
/// directory) when the file is under it, else absolute.
std::string displayPath(llvm::StringRef file, const std::filesystem::path& userDir) {
  std::error_code ec;
  const std::filesystem::path abs = std::filesystem::absolute(file.str(), ec).lexically_normal();
  if (ec || userDir.empty()) return file.str();
  const std::filesystem::path rel = abs.lexically_relative(userDir);
  if (rel.empty() || *rel.begin() == "..") return abs.string();
  return rel.string();
}

/// Records the first error Clang reports in each file (the reason a file is
/// not checked); prints nothing.
class FirstErrors : public DiagnosticConsumer {
 public:
  void HandleDiagnostic(DiagnosticsEngine::Level level, const Diagnostic& info) override {
    DiagnosticConsumer::HandleDiagnostic(level, info);
    if (level < DiagnosticsEngine::Error || !first.empty()) return;
    llvm::SmallString<128> text;
    info.FormatDiagnostic(text);
    std::string where;
    if (info.hasSourceManager() && info.getLocation().isValid()) {
      PresumedLoc p = info.getSourceManager().getPresumedLoc(info.getLocation());
      if (p.isValid())
        where = displayPath(p.getFilename(), userDir) + ":" + std::to_string(p.getLine()) + ": ";
    }
    first = where + std::string(text);
  }
  std::string first;
  std::filesystem::path userDir;  ///< paths are shown relative to it (displayPath)
};

/// One translation unit's walk: rank-dependent values first, then each
/// function body into Items.
class UnitWalker {
 public:
  UnitWalker(ASTContext& ctx, ProgramModel& out, std::set<std::string>& keys,
             std::filesystem::path userDir)
      : ctx_(ctx),
        sm_(ctx.getSourceManager()),
        out_(out),
        keys_(keys),
        userDir_(std::move(userDir)) {}

  void run() {
    std::vector<FunctionDecl*> functions;
    for (Decl* d : ctx_.getTranslationUnitDecl()->decls()) collectFunctions(d, functions);
    // Rank-dependent variables and functions, to a fixed point (bounded).
    for (int round = 0; round < 8; ++round) {
      const std::size_t before = rankVars_.size() + rankFunctions_.size();
      for (FunctionDecl* f : functions) propagateRank(f->getBody(), f);
      if (rankVars_.size() + rankFunctions_.size() == before) break;
    }
    for (FunctionDecl* f : functions) {
      FunctionModel m;
      m.key = keyOf(f);
      m.name = f->getNameAsString();
      m.loc = locOf(f->getLocation());
      // An inline function of a header, seen in an earlier file. (Two
      // programs' `main` share the key, not the place: both are kept.)
      if (!keys_.insert(m.key + "@" + formatLoc(m.loc)).second) continue;
      std::vector<RankCondition> conds;
      walk(f->getBody(), m.body, conds);
      out_.functions.push_back(std::move(m));
    }
  }

 private:
  void collectFunctions(Decl* d, std::vector<FunctionDecl*>& out) {
    if (auto* ns = dyn_cast<DeclContext>(d);
        ns && (isa<NamespaceDecl>(d) || isa<LinkageSpecDecl>(d))) {
      for (Decl* inner : ns->decls()) collectFunctions(inner, out);
      return;
    }
    if (auto* rd = dyn_cast<CXXRecordDecl>(d)) {
      for (Decl* inner : rd->decls()) collectFunctions(inner, out);
      return;
    }
    auto* f = dyn_cast<FunctionDecl>(d);
    if (!f) return;
    if (!f->doesThisDeclarationHaveABody() || sm_.isInSystemHeader(f->getLocation())) return;
    out.push_back(f);
  }

  std::string keyOf(const FunctionDecl* f) {
    llvm::SmallString<128> usr;
    if (index::generateUSRForDecl(f->getCanonicalDecl(), usr)) return f->getQualifiedNameAsString();
    return std::string(usr);
  }

  SourceLoc locOf(SourceLocation l) {
    SourceLocation e = sm_.getExpansionLoc(l);
    PresumedLoc p = sm_.getPresumedLoc(e);
    if (p.isInvalid()) return {};
    return {displayPath(p.getFilename(), userDir_), p.getLine(), p.getColumn()};
  }

  std::string textOf(const Expr* e) {
    CharSourceRange r = sm_.getExpansionRange(e->getSourceRange());
    return std::string(Lexer::getSourceText(r, sm_, ctx_.getLangOpts()));
  }

  static std::string nameOf(const CallExpr* call) {
    const FunctionDecl* f = call->getDirectCallee();
    return f && f->getDeclName().isIdentifier() ? f->getName().str() : "";
  }

  static bool isMpi(const std::string& name) {
    return name.starts_with("MPI_") || name.starts_with("PMPI_");
  }

  static const VarDecl* varOf(const Expr* e) {
    e = e->IgnoreParenImpCasts();
    if (auto* u = dyn_cast<UnaryOperator>(e); u && u->getOpcode() == UO_AddrOf)
      e = u->getSubExpr()->IgnoreParenImpCasts();
    if (auto* ref = dyn_cast<DeclRefExpr>(e)) return dyn_cast<VarDecl>(ref->getDecl());
    return nullptr;
  }

  /// The MPI_Comm_rank call a value of `s` comes from, when any.
  const SourceLoc* rankSource(const Stmt* s) {
    if (!s) return nullptr;
    if (auto* ref = dyn_cast<DeclRefExpr>(s))
      if (auto* v = dyn_cast<VarDecl>(ref->getDecl()))
        if (auto it = rankVars_.find(v->getCanonicalDecl()); it != rankVars_.end())
          return &it->second;
    if (auto* call = dyn_cast<CallExpr>(s))
      if (const FunctionDecl* f = call->getDirectCallee())
        if (auto it = rankFunctions_.find(f->getCanonicalDecl()); it != rankFunctions_.end())
          return &it->second;
    for (const Stmt* c : s->children())
      if (const SourceLoc* r = rankSource(c)) return r;
    return nullptr;
  }

  void markVar(const VarDecl* v, SourceLoc from) {
    if (v) rankVars_.emplace(v->getCanonicalDecl(), std::move(from));
  }

  void propagateRank(const Stmt* s, const FunctionDecl* f) {
    if (!s) return;
    if (auto* call = dyn_cast<CallExpr>(s);
        call && nameOf(call) == "MPI_Comm_rank" && call->getNumArgs() >= 2)
      markVar(varOf(call->getArg(1)), locOf(call->getBeginLoc()));
    if (auto* ds = dyn_cast<DeclStmt>(s))
      for (const Decl* d : ds->decls())
        if (auto* v = dyn_cast<VarDecl>(d); v && v->hasInit())
          if (const SourceLoc* r = rankSource(v->getInit())) markVar(v, *r);
    if (auto* b = dyn_cast<BinaryOperator>(s); b && b->isAssignmentOp())
      if (const SourceLoc* r = rankSource(b->getRHS())) markVar(varOf(b->getLHS()), *r);
    if (auto* ret = dyn_cast<ReturnStmt>(s))
      if (const SourceLoc* r = rankSource(ret->getRetValue()))
        rankFunctions_.emplace(f->getCanonicalDecl(), *r);
    for (const Stmt* c : s->children()) propagateRank(c, f);
  }

  /// The collectives called directly in `s`, in source order (to see whether
  /// both branches of a condition call the same ones).
  void collectives(const Stmt* s, std::vector<std::string>& out) {
    if (!s) return;
    if (auto* call = dyn_cast<CallExpr>(s))
      if (std::string n = nameOf(call); isMpi(n) && n != "MPI_Comm_rank" && n != "MPI_Comm_size")
        out.push_back(n);
    for (const Stmt* c : s->children()) collectives(c, out);
  }

  /// Pushes the condition `cond` when its value depends on the rank.
  bool pushCondition(const Expr* cond, std::vector<RankCondition>& conds) {
    if (!cond) return false;
    const SourceLoc* r = rankSource(cond);
    if (!r) return false;
    conds.push_back({locOf(cond->getBeginLoc()), *r});
    return true;
  }

  void walkUnder(const Expr* cond, const Stmt* body, std::vector<Item>& out,
                 std::vector<RankCondition>& conds) {
    const bool pushed = pushCondition(cond, conds);
    walk(body, out, conds);
    if (pushed) conds.pop_back();
  }

  static bool isConstant(const Expr* e, ASTContext& ctx, std::int64_t value) {
    Expr::EvalResult r;
    return e && !e->isValueDependent() && e->EvaluateAsInt(r, ctx) &&
           r.Val.getInt().getExtValue() == value;
  }

  void walkDirective(const OMPExecutableDirective* d, std::vector<Item>& out,
                     std::vector<RankCondition>& conds) {
    const OpenMPDirectiveKind kind = d->getDirectiveKind();
    if (kind == llvm::omp::OMPD_barrier) {
      Item b;
      b.kind = Item::Kind::Barrier;
      b.loc = locOf(d->getBeginLoc());
      out.push_back(std::move(b));
      return;
    }
    if (d->isStandaloneDirective() || !d->hasAssociatedStmt()) return;
    const Stmt* block = d->getStructuredBlock();
    const bool nowait = d->getSingleClause<OMPNowaitClause>() != nullptr;
    auto region = [&](RegionKind k) {
      Item r;
      r.kind = Item::Kind::Region;
      r.region = k;
      r.loc = locOf(d->getBeginLoc());
      r.construct = llvm::omp::getOpenMPDirectiveName(kind).str() + (nowait ? " nowait" : "");
      return r;
    };
    // The constructs, outermost first (a combined directive has two).
    std::vector<Item> chain;
    if (isOpenMPParallelDirective(kind)) {
      bool oneThread = false;
      if (auto* n = d->getSingleClause<OMPNumThreadsClause>())
        oneThread = isConstant(n->getNumThreads(), ctx_, 1);
      for (const auto* c : d->getClausesOfKind<OMPIfClause>())
        if ((c->getNameModifier() == llvm::omp::OMPD_unknown ||
             c->getNameModifier() == llvm::omp::OMPD_parallel) &&
            isConstant(c->getCondition(), ctx_, 0))
          oneThread = true;
      chain.push_back(region(oneThread ? RegionKind::Inactive : RegionKind::Parallel));
    }
    if (kind == llvm::omp::OMPD_master || kind == llvm::omp::OMPD_parallel_master ||
        kind == llvm::omp::OMPD_master_taskloop ||
        kind == llvm::omp::OMPD_parallel_master_taskloop) {
      chain.push_back(region(RegionKind::Master));
    } else if (kind == llvm::omp::OMPD_masked) {
      auto* f = d->getSingleClause<OMPFilterClause>();
      chain.push_back(region(!f || isConstant(f->getThreadID(), ctx_, 0) ? RegionKind::Master
                                                                         : RegionKind::Single));
    } else if (kind == llvm::omp::OMPD_single || kind == llvm::omp::OMPD_section ||
               kind == llvm::omp::OMPD_task) {
      chain.push_back(region(RegionKind::Single));
      chain.back().barrierAfter = kind == llvm::omp::OMPD_single && !nowait;
    } else if (kind == llvm::omp::OMPD_critical) {
      chain.push_back(region(RegionKind::Critical));
      chain.back().criticalName = cast<OMPCriticalDirective>(d)->getDirectiveName().getAsString();
    } else if (isOpenMPWorksharingDirective(kind) && !isOpenMPParallelDirective(kind)) {
      chain.push_back(region(RegionKind::Worksharing));
      chain.back().barrierAfter = !nowait;
    }
    const bool sections =
        kind == llvm::omp::OMPD_sections || kind == llvm::omp::OMPD_parallel_sections;
    std::vector<Item> body;
    if (sections && block && isa<CompoundStmt>(block)) {
      // The first section needs no `#pragma omp section`: every child is one.
      for (const Stmt* c : block->children()) {
        if (isa<OMPSectionDirective>(c)) {
          walk(c, body, conds);
          continue;
        }
        Item s = region(RegionKind::Single);
        s.construct = "section";
        s.loc = locOf(c->getBeginLoc());
        walk(c, s.body, conds);
        body.push_back(std::move(s));
      }
    } else {
      walk(block, body, conds);
    }
    if (chain.empty()) {  // atomic, ordered, target, teams, ...: no change of threads modelled
      for (Item& i : body) out.push_back(std::move(i));
      return;
    }
    chain.back().body = std::move(body);
    while (chain.size() > 1) {
      Item inner = std::move(chain.back());
      chain.pop_back();
      chain.back().body.push_back(std::move(inner));
    }
    out.push_back(std::move(chain.front()));
  }

  void walkCall(const CallExpr* call, std::vector<Item>& out, std::vector<RankCondition>& conds) {
    for (const Expr* a : call->arguments()) walk(a, out, conds);
    const FunctionDecl* f = call->getDirectCallee();
    if (!f) return;
    Item item;
    item.loc = locOf(call->getBeginLoc());
    item.rankConditions = conds;
    const std::string name = nameOf(call);
    if (isMpi(name)) {
      item.kind = Item::Kind::MpiCall;
      item.callee = name;
      for (unsigned i = 0; i < call->getNumArgs() && i < f->getNumParams(); ++i)
        if (f->getParamDecl(i)->getType().getAsString() == "MPI_Comm") {
          item.communicator = textOf(call->getArg(i));
          break;
        }
      if (name == "MPI_Init" || name == "PMPI_Init") {
        item.initCall = true;
        item.requested = ThreadLevel::Single;
      } else if ((name == "MPI_Init_thread" || name == "PMPI_Init_thread") &&
                 call->getNumArgs() >= 3) {
        item.initCall = true;
        Expr::EvalResult r;
        const Expr* level = call->getArg(2);
        if (!level->isValueDependent() && level->EvaluateAsInt(r, ctx_))
          item.requested = levelFromValue(r.Val.getInt().getExtValue());
      }
    } else {
      if (sm_.isInSystemHeader(f->getLocation()) && !f->hasBody()) return;
      item.kind = Item::Kind::Call;
      item.callee = keyOf(f);
    }
    out.push_back(std::move(item));
  }

  void walk(const Stmt* s, std::vector<Item>& out, std::vector<RankCondition>& conds) {
    if (!s) return;
    if (auto* d = dyn_cast<OMPExecutableDirective>(s)) return walkDirective(d, out, conds);
    if (auto* c = dyn_cast<CapturedStmt>(s)) return walk(c->getCapturedStmt(), out, conds);
    if (auto* call = dyn_cast<CallExpr>(s)) return walkCall(call, out, conds);
    if (auto* i = dyn_cast<IfStmt>(s)) {
      walk(i->getInit(), out, conds);
      walk(i->getCond(), out, conds);
      // Both branches calling the same collectives: every rank calls them.
      std::vector<std::string> a, b;
      collectives(i->getThen(), a);
      collectives(i->getElse(), b);
      const Expr* cond = a == b ? nullptr : i->getCond();
      walkUnder(cond, i->getThen(), out, conds);
      walkUnder(cond, i->getElse(), out, conds);
      return;
    }
    if (auto* w = dyn_cast<WhileStmt>(s)) {
      walk(w->getCond(), out, conds);
      return walkUnder(w->getCond(), w->getBody(), out, conds);
    }
    if (auto* d = dyn_cast<DoStmt>(s)) {
      walkUnder(d->getCond(), d->getBody(), out, conds);
      return walk(d->getCond(), out, conds);
    }
    if (auto* f = dyn_cast<ForStmt>(s)) {
      walk(f->getInit(), out, conds);
      walk(f->getCond(), out, conds);
      const bool pushed = pushCondition(f->getCond(), conds);
      walk(f->getBody(), out, conds);
      walk(f->getInc(), out, conds);
      if (pushed) conds.pop_back();
      return;
    }
    if (auto* sw = dyn_cast<SwitchStmt>(s)) {
      walk(sw->getCond(), out, conds);
      return walkUnder(sw->getCond(), sw->getBody(), out, conds);
    }
    if (auto* c = dyn_cast<ConditionalOperator>(s)) {
      walk(c->getCond(), out, conds);
      walkUnder(c->getCond(), c->getTrueExpr(), out, conds);
      return walkUnder(c->getCond(), c->getFalseExpr(), out, conds);
    }
    if (isa<LambdaExpr>(s)) return;  // its body runs where it is called
    for (const Stmt* c : s->children()) walk(c, out, conds);
  }

  ASTContext& ctx_;
  SourceManager& sm_;
  ProgramModel& out_;
  std::set<std::string>& keys_;
  std::filesystem::path userDir_;
  std::map<const VarDecl*, SourceLoc> rankVars_;
  std::map<const FunctionDecl*, SourceLoc> rankFunctions_;
};

class Consumer : public ASTConsumer {
 public:
  Consumer(ProgramModel& out, std::set<std::string>& keys, FirstErrors& errors, std::string file,
           std::filesystem::path userDir)
      : out_(out),
        keys_(keys),
        errors_(errors),
        file_(std::move(file)),
        userDir_(std::move(userDir)) {}
  void HandleTranslationUnit(ASTContext& ctx) override {
    if (ctx.getDiagnostics().hasErrorOccurred()) {
      out_.problems.push_back(displayPath(file_, userDir_) + ": not checked: " +
                              (errors_.first.empty() ? "Clang reported errors" : errors_.first));
      return;
    }
    out_.files.push_back(displayPath(file_, userDir_));
    UnitWalker(ctx, out_, keys_, userDir_).run();
  }

 private:
  ProgramModel& out_;
  std::set<std::string>& keys_;
  FirstErrors& errors_;
  std::string file_;
  std::filesystem::path userDir_;
};

class Action : public ASTFrontendAction {
 public:
  Action(ProgramModel& out, std::set<std::string>& keys, FirstErrors& errors,
         std::filesystem::path userDir)
      : out_(out), keys_(keys), errors_(errors), userDir_(std::move(userDir)) {}
  std::unique_ptr<ASTConsumer> CreateASTConsumer(CompilerInstance&, llvm::StringRef file) override {
    return std::make_unique<Consumer>(out_, keys_, errors_, file.str(), userDir_);
  }

 private:
  ProgramModel& out_;
  std::set<std::string>& keys_;
  FirstErrors& errors_;
  std::filesystem::path userDir_;
};

class Factory : public tooling::FrontendActionFactory {
 public:
  Factory(ProgramModel& out, std::set<std::string>& keys, FirstErrors& errors,
          std::filesystem::path userDir)
      : out_(out), keys_(keys), errors_(errors), userDir_(std::move(userDir)) {}
  std::unique_ptr<FrontendAction> create() override {
    return std::make_unique<Action>(out_, keys_, errors_, userDir_);
  }

 private:
  ProgramModel& out_;
  std::set<std::string>& keys_;
  FirstErrors& errors_;
  std::filesystem::path userDir_;
};

}  // namespace

Expected<ProgramModel> extractProgram(const ExtractOptions& options) {
  std::unique_ptr<tooling::CompilationDatabase> db;
  if (options.haveFixedFlags) {
    db = std::make_unique<tooling::FixedCompilationDatabase>(".", options.fixedFlags);
  } else if (!options.buildDir.empty()) {
    std::string err;
    db = tooling::CompilationDatabase::loadFromDirectory(options.buildDir, err);
    if (!db) return fail("cannot read " + options.buildDir + "/compile_commands.json: " + err);
  } else {
    return fail(
        "no compile flags: give -p BUILD_DIR (with compile_commands.json) or flags after --");
  }
  std::vector<std::string> files;
  for (const std::string& f : options.files) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(f, ec))
      return fail("cannot read " + f + ": no such file");
    files.push_back(std::filesystem::absolute(f).lexically_normal().string());
  }
  if (files.empty()) files = db->getAllFiles();
  if (files.empty()) return fail("no files to check");
  std::error_code ec;
  const std::filesystem::path userDir = std::filesystem::current_path(ec);
  ProgramModel model;
  std::set<std::string> keys;
  FirstErrors errors;
  errors.userDir = userDir;
  for (const std::string& file : files) {
    // One tool per file: a file without a compile command is named, not fatal.
    if (!options.haveFixedFlags && db->getCompileCommands(file).empty()) {
      model.problems.push_back(displayPath(file, userDir) + ": not checked: not in " +
                               options.buildDir + "/compile_commands.json");
      continue;
    }
    tooling::ClangTool tool(*db, {file});
    tool.setDiagnosticConsumer(&errors);
    errors.first.clear();
    // GCC 12's -std=c++23 is -std=c++2b to Clang 14 to 16.
    tool.appendArgumentsAdjuster([](const tooling::CommandLineArguments& args, llvm::StringRef) {
      tooling::CommandLineArguments out = args;
      for (std::string& a : out) {
        if (a == "-std=c++23") a = "-std=c++2b";
        if (a == "-std=gnu++23") a = "-std=gnu++2b";
      }
      return out;
    });
    tool.appendArgumentsAdjuster(tooling::getInsertArgumentAdjuster(
        {"-w", "-resource-dir=" MPIDBG_CLANG_RESOURCE_DIR}, tooling::ArgumentInsertPosition::END));
    Factory factory(model, keys, errors, userDir);
    const std::size_t before = model.files.size() + model.problems.size();
    tool.run(&factory);
    if (model.files.size() + model.problems.size() == before)
      model.problems.push_back(displayPath(file, userDir) + ": not checked: " +
                               (errors.first.empty() ? "Clang could not run" : errors.first));
  }
  // A file with two compile commands (two targets) is parsed twice: named once.
  for (std::vector<std::string>* list : {&model.files, &model.problems}) {
    std::set<std::string> seen;
    std::erase_if(*list, [&seen](const std::string& s) { return !seen.insert(s).second; });
  }
  return model;
}

}  // namespace mpidbg::check
