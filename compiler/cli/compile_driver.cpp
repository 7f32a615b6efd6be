// compiler/cli/compile_driver.cpp — see compile_driver.h.
#include "compile_driver.h"

#include <iostream>

#include "explain.h"
#include "explain_summary.h"
#include "frontend.h"
#include "paths.h"
#include "print_policy.h"
#include "verify.h"

namespace tartaros {

int report_diagnostics_failure(const std::string &source, const Diagnostics &diags)
{
    const size_t errors = diags.error_count();
    std::cerr << "tartaros: " << source << ": " << errors << (errors == 1 ? " error" : " errors") << '\n';
    diags.print(std::cerr);
    return kExitRefusal;
}

std::optional<Policy> load_policy_file(const std::string &path, Diagnostics &diags, PolicyTexts *texts)
{
    std::string text, err;
    if (!read_file(path, text, err)) {
        print_refusal("cannot read " + path + ": " + err);
        return std::nullopt;
    }
    std::optional<Policy> policy = parse_policy_text(text, path, diags, texts);
    if (!policy)
        report_diagnostics_failure(path, diags);
    return policy;
}

std::vector<uint8_t> compile_policy(const Policy &policy, const std::string &plan_path, const std::string &source,
                                    Diagnostics &diags, const HostView *host)
{
    std::vector<uint8_t> plan = lower_policy(policy, LowerOptions{plan_path, host}, diags);
    if (plan.empty() || diags.has_errors()) {
        report_diagnostics_failure(source, diags);
        plan.clear();
    }
    return plan;
}

int compile_policy_file(const std::string &policy_path, const std::string &plan_path, bool verbose)
{
    Diagnostics diags;
    const std::optional<Policy> policy = load_policy_file(policy_path, diags);
    if (!policy)
        return kExitRefusal;
    const std::optional<std::string> absolute_plan = absolute_path(plan_path);
    if (!absolute_plan)
        return print_refusal("cannot resolve " + plan_path + ": the current directory is gone");
    const std::vector<uint8_t> plan = compile_policy(*policy, *absolute_plan, policy_path, diags);
    if (plan.empty())
        return kExitRefusal;
    diags.print(std::cerr, verbose);  // warnings, and notes when asked

    std::string err;
    if (!write_file_atomically(plan_path, plan, kPlanMode, err))
        return print_refusal("cannot write " + plan_path + ": " + err);
    return kExitOk;
}

int print_policy_file(const std::string &policy_path)
{
    Diagnostics diags;
    const std::optional<Policy> policy = load_policy_file(policy_path, diags);
    if (!policy)
        return kExitRefusal;
    diags.print(std::cerr, false);
    std::cout << print_policy(*policy);
    std::cout.flush();
    if (!std::cout)
        return print_refusal("cannot write the policy to standard output");
    return kExitOk;
}

int explain_plan_file(const std::string &plan_path, bool json, bool summary)
{
    std::string text, err;
    if (!read_file(plan_path, text, err))
        return print_refusal("cannot read " + plan_path + ": " + err);
    const std::vector<uint8_t> plan(text.begin(), text.end());
    if (summary ? !explain_plan_summary(plan, std::cout, err) : !explain_plan(plan, json, std::cout, err))
        return print_refusal(plan_path + ": invalid plan: " + err);
    std::cout.flush();
    if (!std::cout)
        return print_refusal("cannot write the explanation to standard output");
    return kExitOk;
}

int verify_plan_file(const std::string &plan_path)
{
    std::string text, err;
    if (!read_file(plan_path, text, err))
        return print_refusal("cannot read " + plan_path + ": " + err);
    if (const Failure failure = verify_plan_alone(std::vector<uint8_t>(text.begin(), text.end())))
        return print_refusal(plan_path + ": " + *failure);
    std::cout << plan_path
              << ": ok: the plan reader accepts it and its seccomp filter implements the rules it states\n";
    return kExitOk;
}

}  // namespace tartaros
