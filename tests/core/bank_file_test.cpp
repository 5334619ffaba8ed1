// Kernel-bank files (N:M:M layers): a round trip, the layout [input][output],
// and a field-naming error for each kind of malformed bank.
#include <gtest/gtest.h>

#include "fs/layer.hpp"

namespace fs {
namespace {

#define FS_BANK R"("format":"filterstudio-kernel-bank","version":1,)"

TEST(BankFile, RoundTripKeepsEveryKernelInItsPlace) {
    KernelBank bank;
    bank.name = "edges";
    bank.inputs = 2;
    bank.outputs = 3;
    for (int i = 0; i < 6; ++i) bank.kernels.push_back(Kernel(1 + 2 * (i % 3), 3, std::vector<float>(3 * (1 + 2 * (i % 3)), 0.5f * static_cast<float>(i))));
    bank.border = {BorderMode::Constant, 2.5f};
    bank.output = {0.5f, 1.0f, true, false};
    KernelBank back;
    std::string why;
    ASSERT_TRUE(parseBankJson(bankToJson(bank), back, &why)) << why;
    EXPECT_EQ(back.name, "edges");
    EXPECT_EQ(back.inputs, 2);
    EXPECT_EQ(back.outputs, 3);
    EXPECT_EQ(back.border, bank.border);
    EXPECT_EQ(back.output, bank.output);
    ASSERT_EQ(back.kernels.size(), 6u);
    for (int n = 0; n < 2; ++n)
        for (int m = 0; m < 3; ++m) EXPECT_EQ(back.at(n, m), bank.at(n, m)) << n << ", " << m;
}

TEST(BankFile, RowsAreInputsAndColumnsOutputs) {
    KernelBank bank;
    std::string why;
    ASSERT_TRUE(parseBankJson("{" FS_BANK R"("inputs":2,"outputs":1,"kernels":[[{"weights":[[1]]}],[{"weights":[[2]]}]]})",
                              bank, &why))
        << why;
    EXPECT_EQ(bank.at(1, 0).weights[0], 2.0f);
    EXPECT_EQ(bank.border.mode, BorderMode::Reflect101);  // the kernel files' default
}

TEST(BankFile, MalformedBanksNameTheField) {
    const std::pair<const char*, const char*> cases[] = {
        {R"({"format":"filterstudio-kernel","version":1,"kernels":[]})", "format"},
        {"{" FS_BANK R"("outputs":1,"kernels":[[{"weights":[[1]]}]]})", "inputs: missing"},
        {"{" FS_BANK R"("inputs":0,"outputs":1,"kernels":[]})", "inputs: expected a whole number"},
        {"{" FS_BANK R"("inputs":2,"outputs":1,"kernels":[[{"weights":[[1]]}]]})", "kernels: expected an array of 2 rows"},
        {"{" FS_BANK R"("inputs":1,"outputs":2,"kernels":[[{"weights":[[1]]}]]})", "kernels[0]: expected an array of 2 kernels"},
        {"{" FS_BANK R"("inputs":1,"outputs":1,"kernels":[[{"weights":[[1,1]]}]]})", "kernels[0][0]"},
        {"{" FS_BANK R"("inputs":1,"outputs":1,"kernels":[[{"weights":[[1]]}]],"output":{"size":"valid"}})", "output.size"},
        {"{" FS_BANK R"("inputs":1,"outputs":1,"kernels":[[{"weights":[[1]]}]],"bias":[0]})", "bias: unknown field"},
    };
    for (const auto& [text, mentions] : cases) {
        KernelBank bank;
        std::string why;
        EXPECT_FALSE(parseBankJson(text, bank, &why)) << text;
        EXPECT_NE(why.find(mentions), std::string::npos) << text << ": " << why;
    }
}

#undef FS_BANK

}  // namespace
}  // namespace fs
