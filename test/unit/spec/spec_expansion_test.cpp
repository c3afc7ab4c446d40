// Expansion and linking of jobs, files and user data (docs/TORC-COMPATIBILITY.md §4.4-§4.7) with
// torcrun's rules where Torc's code and docs disagree (§4.10 items 4-7, 10, 11): the worked
// examples A-C of §4.5, the diamond of §4.7, the user-data example of §4.6, which fields are
// templated, regexes, and every warning verbatim. The case names keep the section numbers the
// cases were first written against: their §11.7 is §4.5's worked examples, §12 is §4.6, §13.5
// is §4.7's diamond, and §17 item N is §4.10 item N.
#include "spec_support.hpp"

#include <boost/test/data/monomorphic.hpp>
#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>

#include <ostream>

namespace bdata = boost::unit_test::data;
using namespace spec_test;

namespace {

struct expansion_case {
    std::string label;
    std::string text;
    strings expected;
};
std::ostream& operator<<(std::ostream& os, expansion_case const& c)
{
    return os << c.label;
}

std::vector<expansion_case> const worked_examples{
    {"§11.7 A: shared parameters, a float range and a format",
     R"({ name:"w1", parameters:{ seed:"[1,2]", lr:"0.1:0.3:0.1" },
  files:[ {name:"data_{seed}", path:"/d/data_{seed}.bin", use_parameters:["seed"]},
          {name:"summary", path:"/d/summary.csv"} ],
  jobs:[ {name:"gen_{seed}", command:"gen --seed {seed} -o ${files.output.data_{seed}}", use_parameters:["seed"]},
         {name:"fit_s{seed}_lr{lr:.2f}", command:"fit --lr {lr} -i ${files.input.data_{seed}}", use_parameters:["seed","lr"]},
         {name:"collect", command:"collect -o ${files.output.summary}", depends_on_regexes:["^fit_"]} ] })",
     {"file data_1=/d/data_1.bin", "file data_2=/d/data_2.bin", "file summary=/d/summary.csv",
      "job gen_1: gen --seed 1 -o /d/data_1.bin | out=data_1",
      "job gen_2: gen --seed 2 -o /d/data_2.bin | out=data_2",
      "job fit_s1_lr0.10: fit --lr 0.1 -i /d/data_1.bin | in=data_1",
      "job fit_s1_lr0.20: fit --lr 0.2 -i /d/data_1.bin | in=data_1",
      "job fit_s1_lr0.30: fit --lr 0.30000000000000004 -i /d/data_1.bin | in=data_1",
      "job fit_s2_lr0.10: fit --lr 0.1 -i /d/data_2.bin | in=data_2",
      "job fit_s2_lr0.20: fit --lr 0.2 -i /d/data_2.bin | in=data_2",
      "job fit_s2_lr0.30: fit --lr 0.30000000000000004 -i /d/data_2.bin | in=data_2",
      "job collect: collect -o /d/summary.csv | deps=fit_s1_lr0.10,fit_s1_lr0.20,fit_s1_lr0.30,"
      "fit_s2_lr0.10,fit_s2_lr0.20,fit_s2_lr0.30 | out=summary",
      "explicit collect>fit_s1_lr0.10 collect>fit_s1_lr0.20 collect>fit_s1_lr0.30 "
      "collect>fit_s2_lr0.10 collect>fit_s2_lr0.20 collect>fit_s2_lr0.30",
      "implied fit_s1_lr0.10>gen_1 fit_s1_lr0.20>gen_1 fit_s1_lr0.30>gen_1 fit_s2_lr0.10>gen_2 "
      "fit_s2_lr0.20>gen_2 fit_s2_lr0.30>gen_2"}},
    {"§11.7 B: zip pairs the i-th values",
     R"({name:"w", jobs:[{name:"t_{d}_{m}", command:"t", parameters:{d:"['a','b']", m:"['x','y']"}, parameter_mode:"zip"}]})",
     {"job t_a_x: t", "job t_b_y: t"}},
    {"§11.7 B: product gives all four",
     R"({name:"w", jobs:[{name:"t_{d}_{m}", command:"t", parameters:{d:"['a','b']", m:"['x','y']"}}]})",
     {"job t_a_x: t", "job t_a_y: t", "job t_b_x: t", "job t_b_y: t"}},
    {"§11.7 C: fan-in becomes one job waiting for all (§17 item 6)",
     R"({name:"w", jobs:[ {name:"sim_{k}", command:"sim {k}", output_files:["out_{k}"], parameters:{k:"1:3"}},
       {name:"merge", command:"merge", depends_on:["sim_{k}"], input_files:["out_{k}"], parameters:{k:"1:3"}} ],
files:[ {name:"out_{k}", path:"o{k}.txt", parameters:{k:"1:3"}} ]})",
     {"file out_1=o1.txt", "file out_2=o2.txt", "file out_3=o3.txt", "job sim_1: sim 1 | out=out_1",
      "job sim_2: sim 2 | out=out_2", "job sim_3: sim 3 | out=out_3",
      "job merge: merge | deps=sim_1,sim_2,sim_3 | in=out_1,out_2,out_3 | copies=3",
      "explicit merge>sim_1 merge>sim_2 merge>sim_3", "implied merge>sim_1 merge>sim_2 merge>sim_3",
      "warning: jobs[1] \"merge\": 3 expansions share the name \"merge\"; torcrun creates one job "
      "with all their dependencies, files and user data (Torc 0.10 creates 3 copies)"}},
    {"§13.5 the diamond: edges only from files",
     R"({name:"w", files:[{name:"f1", path:"/f1"}, {name:"f2", path:"/f2"}, {name:"f3", path:"/f3"},
  {name:"f4", path:"/f4"}, {name:"f5", path:"/f5"}, {name:"f6", path:"/f6"}],
jobs:[ {name:"preprocess", command:"p -i ${files.input.f1} -o ${files.output.f2} -o ${files.output.f3}"},
       {name:"work1", command:"w -i ${files.input.f2} -o ${files.output.f4}"},
       {name:"work2", command:"w -i ${files.input.f3} -o ${files.output.f5}"},
       {name:"postprocess", command:"q -i ${files.input.f4} -i ${files.input.f5} -o ${files.output.f6}"} ]})",
     {"file f1=/f1", "file f2=/f2", "file f3=/f3", "file f4=/f4", "file f5=/f5", "file f6=/f6",
      "job preprocess: p -i /f1 -o /f2 -o /f3 | in=f1 | out=f2,f3",
      "job work1: w -i /f2 -o /f4 | in=f2 | out=f4", "job work2: w -i /f3 -o /f5 | in=f3 | out=f5",
      "job postprocess: q -i /f4 -i /f5 -o /f6 | in=f4,f5 | out=f6",
      "implied work1>preprocess work2>preprocess postprocess>work1 postprocess>work2"}},
    {"§12: user data in a command is its JSON; listed names are kept (§17 item 11)",
     R"({name:"w", user_data:[{name:"cfg", data:{lr:0.01, arch:"mlp"}}, {name:"metrics"}],
jobs:[{name:"make", command:"write ${user_data.output.cfg}", output_user_data:["metrics"]},
      {name:"read", command:"read", input_user_data:["metrics"]}]})",
     {"user_data cfg={\"lr\":1E-2,\"arch\":\"mlp\"}", "user_data metrics",
      "job make: write {\"arch\":\"mlp\",\"lr\":0.01} | uout=metrics,cfg",
      "job read: read | uin=metrics", "implied read>make",
      "warning: jobs[0] \"make\": Torc 0.10 replaces output_user_data with the names the command "
      "gives through ${user_data.output.*}; torcrun keeps the listed ones too"}},
};

std::vector<expansion_case> const expansion_cases{
    {"product order: the first parameter outermost",
     R"({name:"w", jobs:[{name:"j_{a}_{b}", command:"c", parameters:{a:"1:2", b:"['x','y']"}}]})",
     {"job j_1_x: c", "job j_1_y: c", "job j_2_x: c", "job j_2_y: c"}},
    {"templated fields: name, command, script, resource requirements, scheduler and every list",
     R"({name:"w", resource_requirements:[{name:"r2", num_cpus:1, memory:"1g"}],
slurm_schedulers:[{name:"s2", account:"a"}], files:[{name:"f2", path:"/f"}], user_data:[{name:"u2"}],
jobs:[{name:"a2", command:"c"}, {name:"j{i}", command:"c{i}", invocation_script:"s{i}", resource_requirements:"r{i}",
  scheduler:"s{i}", depends_on:["a{i}"], input_files:["f{i}"], input_user_data:["u{i}"], parameters:{i:"[2]"}}]})",
     {"file f2=/f", "user_data u2", "job a2: c",
      "job j2: c2 | script=s2 | deps=a2 | in=f2 | uin=u2 | rr=r2 | sched=s2", "explicit j2>a2"}},
    {"failure_handler is not templated",
     R"({name:"w", failure_handlers:[{name:"h_{i}", rules:[]}],
jobs:[{name:"j{i}", command:"c", failure_handler:"h_{i}", parameters:{i:"[1]"}}]})",
     {"job j1: c | fh=h_{i}"}},
    {"an unparameterized template keeps its braces",
     R"({name:"w", parameters:{i:"1:3"}, jobs:[{name:"j{i}", command:"echo {i} ${i}"}]})",
     {"job j{i}: echo {i} ${i}"}},
    {"parameters {} are one combination without substitution",
     R"({name:"w", jobs:[{name:"j{i}", command:"c", parameters:{}}]})",
     {"job j{i}: c"}},
    {"use_parameters takes names from the pool",
     R"({name:"w", parameters:{i:"1:2", s:"['x']"}, jobs:[{name:"j{i}{s}", command:"c", use_parameters:["s","i"]}]})",
     {"job j1x: c", "job j2x: c"}},
    {"own parameters win over use_parameters",
     R"({name:"w", parameters:{i:"1:2"}, jobs:[{name:"j{i}", command:"c", parameters:{i:"[7]"}, use_parameters:["i"]}]})",
     {"job j7: c",
      "warning: jobs[0] \"j{i}\": use_parameters: [\"i\"] is ignored because the entry has its own "
      "parameters"}},
    {"use_parameters naming a missing parameter",
     R"({name:"w", parameters:{i:"1:2"}, jobs:[{name:"j{k}", command:"c", use_parameters:["k"]}]})",
     {"job j{k}: c", "warning: jobs[0] \"j{k}\": use_parameters: \"k\" is not a workflow "
                     "parameter; it is skipped"}},
    {"a parameter with no values makes no jobs",
     R"({name:"w", jobs:[{name:"j{i}", command:"c", parameters:{i:"10:1"}}, {name:"k", command:"c"}]})",
     {"job k: c",
      "warning: jobs[0] \"j{i}\": a parameter has no values, so it expands to no jobs (as in Torc "
      "0.10)"}},
    {"{p} beside {p:fmt}: every placeholder is substituted (§17 item 7)",
     R"({name:"w", jobs:[{name:"s_{i:03d}", command:"run --id {i} -o s_{i:03d}", parameters:{i:"[7]"}}]})",
     {"job s_007: run --id 7 -o s_007", "warning: jobs[0] \"s_{i:03d}\": template \"run --id {i} "
                                        "-o s_{i:03d}\": Torc 0.10 would leave "
                                        "\"{i}\" literal here; torcrun substitutes it"}},
    {"a float range whose step exceeds the span (§17 item 4)",
     R"({name:"w", jobs:[{name:"j{x}", command:"c", parameters:{x:"0.0001:0.01:10"}}]})",
     {"job j0.0001: c",
      "warning: jobs[0] \"j{x}\": parameter \"x\": \"0.0001:0.01:10\" yields the single value "
      "0.0001: its step 10 exceeds the span, and steps are added, not multiplied"}},
    {"parameterized files",
     R"({name:"w", jobs:[], files:[{name:"raw_{d}", path:"/data/{d}.csv", parameters:{d:"['a','b']"}}]})",
     {"file raw_a=/data/a.csv", "file raw_b=/data/b.csv"}},
    {"parameterized user data: the name and the strings in data (§17 item 5)",
     R"({name:"w", jobs:[], user_data:[{name:"cfg_{i}", data:{path:"/c/{i}", n:1, "{i}":["{i}"]}, is_ephemeral:true, parameters:{i:"1:2"}}]})",
     {"user_data cfg_1={\"path\":\"/c/1\",\"n\":1,\"{i}\":[\"1\"]}",
      "user_data cfg_2={\"path\":\"/c/2\",\"n\":1,\"{i}\":[\"2\"]}",
      "warning: user_data[0] \"cfg_{i}\": Torc 0.10 rejects parameters on user data; torcrun "
      "expands the entry like a file"}},
    {"user data without data: the name is substituted and the dependency added (§17 item 10)",
     R"({name:"w", user_data:[{name:"meta"}],
jobs:[{name:"w", command:"w ${user_data.output.meta}"}, {name:"r", command:"r ${user_data.input.meta}"}]})",
     {"user_data meta", "job w: w meta | uout=meta", "job r: r meta | uin=meta", "implied r>w",
      "warning: jobs[0] \"w\": Torc 0.10 leaves ${user_data.output.meta} literal and adds no "
      "dependency because \"meta\" has no data; torcrun substitutes the name and adds the "
      "dependency",
      "warning: jobs[1] \"r\": Torc 0.10 leaves ${user_data.input.meta} literal and adds no "
      "dependency because \"meta\" has no data; torcrun substitutes the name and adds the "
      "dependency"}},
    {"user data JSON: keys sorted at every level, floats as serde_json prints them",
     R"({name:"w", user_data:[{name:"d", data:{z:[1.0, 1e21, 1e-7, 0.00001, -0.0, 123456789012345680000.0], a:{y:"q\"\n", b:true, n:null}}}],
jobs:[{name:"j", command:"${user_data.input.d}"}]})",
     {"user_data "
      "d={\"z\":[1E0,1E21,1E-7,1E-5,-0E0,1.2345678901234568E20],\"a\":{\"y\":\"q\\\"\\n\",\"b\":"
      "true,\"n\":null}}",
      "job j: "
      "{\"a\":{\"b\":true,\"n\":null,\"y\":\"q\\\"\\n\"},\"z\":[1.0,1e21,1e-7,0.00001,-0.0,1."
      "2345678901234568e20]} | uin=d"}},
    {"unknown placeholder names stay as written",
     R"({name:"w", jobs:[{name:"j", command:"c ${files.input.nope} ${user_data.output.none} ${files.other.x} ${HOME}"}]})",
     {"job j: c ${files.input.nope} ${user_data.output.none} ${files.other.x} ${HOME}",
      "warning: jobs[0] \"j\": ${files.input.nope} names no file; it is left as written",
      "warning: jobs[0] \"j\": ${user_data.output.none} names no user data; it is left as "
      "written"}},
    {"invocation_script placeholders are merged into the lists",
     R"({name:"w", files:[{name:"a", path:"/a"}, {name:"b", path:"/b"}, {name:"c", path:"/c"}],
jobs:[{name:"j", command:"c ${files.input.a}", invocation_script:"s ${files.input.b} ${files.output.c}", input_files:["b"]}]})",
     {"file a=/a", "file b=/b", "file c=/c", "job j: c /a | script=s /b /c | in=b,a | out=c"}},
    {"explicit lists and placeholders naming the same file",
     R"({name:"w", files:[{name:"a", path:"/a"}], jobs:[{name:"p", command:"p ${files.output.a}", output_files:["a"]},
  {name:"c", command:"c ${files.input.a} ${files.input.a}"}]})",
     {"file a=/a", "job p: p /a | out=a", "job c: c /a /a | in=a", "implied c>p"}},
    {"depends_on_regexes: unanchored search, values not escaped",
     R"({name:"w", jobs:[{name:"fit_0.01", command:"c"}, {name:"fit_0x01", command:"c"}, {name:"refit_0.01", command:"c"},
  {name:"best_{v}", command:"c", depends_on_regexes:["^fit_{v}$"], parameters:{v:"['0.01']"}},
  {name:"all", command:"c", depends_on_regexes:["fit_"]}]})",
     {"job fit_0.01: c", "job fit_0x01: c", "job refit_0.01: c",
      "job best_0.01: c | deps=fit_0.01,fit_0x01", "job all: c | deps=fit_0.01,fit_0x01,refit_0.01",
      "explicit best_0.01>fit_0.01 best_0.01>fit_0x01 all>fit_0.01 all>fit_0x01 all>refit_0.01"}},
    {"a regex adds only names not yet listed",
     R"({name:"w", jobs:[{name:"a1", command:"c"}, {name:"a2", command:"c"},
  {name:"z", command:"c", depends_on:["a1"], depends_on_regexes:["^a"]}]})",
     {"job a1: c", "job a2: c", "job z: c | deps=a1,a2", "explicit z>a1 z>a2"}},
    {"file and user-data regexes",
     R"({name:"w", files:[{name:"in_{i}", path:"/i{i}", parameters:{i:"1:2"}}, {name:"out", path:"/o"}],
user_data:[{name:"u1"}, {name:"u2"}],
jobs:[{name:"p", command:"p", output_file_regexes:["^in_"], output_user_data_regexes:["u"]},
      {name:"c", command:"c", input_file_regexes:["_2$"], output_files:["out"], input_user_data_regexes:["1"]}]})",
     {"file in_1=/i1", "file in_2=/i2", "file out=/o", "user_data u1", "user_data u2",
      "job p: p | out=in_1,in_2 | uout=u1,u2", "job c: c | in=in_2 | out=out | uin=u1",
      "implied c>p"}},
    {"a job declared before the job it depends on",
     R"({name:"w", jobs:[{name:"late", command:"c", depends_on:["early"]}, {name:"early", command:"c"}]})",
     {"job late: c | deps=early", "job early: c", "explicit late>early"}},
    {"several names shared by expansions: one warning for the template",
     R"({name:"w", jobs:[{name:"a_{d}_{t}", command:"a", parameters:{d:"[1,2]", t:"[x,y]"}},
  {name:"r_{d}", command:"r {d}", depends_on:["a_{d}_{t}"], parameters:{d:"[1,2]", t:"[x,y]"}}]})",
     {"job a_1_x: a", "job a_1_y: a", "job a_2_x: a", "job a_2_y: a",
      "job r_1: r 1 | deps=a_1_x,a_1_y | copies=2", "job r_2: r 2 | deps=a_2_x,a_2_y | copies=2",
      "explicit r_1>a_1_x r_1>a_1_y r_2>a_2_x r_2>a_2_y",
      "warning: jobs[1] \"r_{d}\": 2 names are shared by several expansions, such as \"r_1\"; "
      "torcrun creates one job per name with all their dependencies, files and user data (Torc "
      "0.10 creates 2 copies of \"r_1\")"}},
    {"null optional fields are absent",
     R"({name:"w", files:null, user_data:null, jobs:[{name:"j", command:"c", depends_on:null, input_files:null, parameters:null}]})",
     {"job j: c"}},
};

}  // namespace

BOOST_AUTO_TEST_SUITE(spec_expansion)

BOOST_DATA_TEST_CASE(worked_example, bdata::make(worked_examples), c)
{
    auto const expanded = expand(c.text);
    BOOST_TEST_REQUIRE(message_of(expanded) == "ok");
    BOOST_TEST(describe(*expanded) == c.expected, boost::test_tools::per_element());
}

BOOST_DATA_TEST_CASE(expansion, bdata::make(expansion_cases), c)
{
    auto const expanded = expand(c.text);
    BOOST_TEST_REQUIRE(message_of(expanded) == "ok");
    BOOST_TEST(describe(*expanded) == c.expected, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_SUITE_END()
