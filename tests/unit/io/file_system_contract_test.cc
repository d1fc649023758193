// The file_system contract, checked against the real (posix) and the
// in-memory implementation alike.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include "io/memory_file_system.h"
#include "io/posix_file_system.h"

namespace ketch::io {
namespace {

class file_system_contract : public ::testing::TestWithParam<std::string> {
protected:
    void SetUp() override {
        if (GetParam() == "posix") {
            char tmpl[] = "/tmp/ketch-io-test-XXXXXX";
            ASSERT_NE(::mkdtemp(tmpl), nullptr);
            root_ = tmpl;
            fs_ = std::make_shared<posix_file_system>();
        } else {
            root_ = "/mem";
            fs_ = std::make_shared<memory_file_system>();
            ASSERT_TRUE(fs_->mkdir(root_).ok());
        }
    }
    void TearDown() override {
        if (GetParam() == "posix") std::filesystem::remove_all(root_);
    }
    std::string p(std::string_view name) const { return join_path(root_, name); }

    std::shared_ptr<file_system> fs_;
    std::string root_;
};

TEST_P(file_system_contract, write_then_read_back_at_positions) {
    auto f = fs_->open(p("a"), open_mode::create);
    ASSERT_TRUE(f.ok());
    ASSERT_TRUE((*f)->pwrite(0, as_bytes("hello world")).ok());
    byte_view parts[] = {as_bytes("HE"), as_bytes("LLO")};
    ASSERT_TRUE((*f)->pwritev(0, parts).ok());
    EXPECT_EQ(*(*f)->size(), 11u);
    bytes buf(5);
    ASSERT_TRUE((*f)->read_exact(6, buf).ok());
    EXPECT_EQ(std::string(buf.begin(), buf.end()), "world");
    ASSERT_TRUE((*f)->read_exact(0, buf).ok());
    EXPECT_EQ(std::string(buf.begin(), buf.end()), "HELLO");
    // A read past the end is short; read_exact reports end_of_file.
    auto n = (*f)->pread(8, buf);
    ASSERT_TRUE(n.ok());
    EXPECT_EQ(*n, 3u);
    auto st = (*f)->read_exact(8, buf);
    ASSERT_FALSE(st.ok());
    EXPECT_EQ(st.error().kind, io_errc::end_of_file);
}

TEST_P(file_system_contract, open_modes) {
    EXPECT_EQ(fs_->open(p("missing"), open_mode::read_only).error().kind, io_errc::not_found);
    EXPECT_EQ(fs_->open(p("missing"), open_mode::read_write).error().kind, io_errc::not_found);
    ASSERT_TRUE(fs_->open(p("x"), open_mode::create_new).ok());
    EXPECT_EQ(fs_->open(p("x"), open_mode::create_new).error().kind, io_errc::exists);
    {
        auto f = fs_->open(p("x"), open_mode::create);
        ASSERT_TRUE((*f)->append(as_bytes("abc")).ok());
        ASSERT_TRUE((*f)->append(as_bytes("def")).ok());
        EXPECT_EQ(*(*f)->size(), 6u);
    }
    auto t = fs_->open(p("x"), open_mode::truncate);
    ASSERT_TRUE(t.ok());
    EXPECT_EQ(*(*t)->size(), 0u);
    EXPECT_EQ(fs_->open(join_path(p("nodir"), "f"), open_mode::create).error().kind, io_errc::not_found);
}

TEST_P(file_system_contract, truncate_cuts_and_extends_with_zeros) {
    auto f = *fs_->open(p("t"), open_mode::create);
    ASSERT_TRUE(f->pwrite(0, as_bytes("abcdef")).ok());
    ASSERT_TRUE(f->truncate(2).ok());
    EXPECT_EQ(*f->size(), 2u);
    ASSERT_TRUE(f->truncate(4).ok());
    bytes b(4);
    ASSERT_TRUE(f->read_exact(0, b).ok());
    EXPECT_EQ(b, (bytes{'a', 'b', 0, 0}));
    EXPECT_TRUE(f->fdatasync().ok());
}

TEST_P(file_system_contract, directories_rename_remove_list) {
    ASSERT_TRUE(fs_->mkdir(p("d1/d2/d3")).ok());
    ASSERT_TRUE(fs_->mkdir(p("d1/d2")).ok());  // exists: fine
    ASSERT_TRUE(fs_->open(p("d1/f"), open_mode::create).ok());
    ASSERT_TRUE(write_file_atomically(*fs_, p("d1/g"), as_bytes("content")).ok());
    auto ls = fs_->list_dir(p("d1"));
    ASSERT_TRUE(ls.ok());
    std::vector<std::string> names;
    for (auto& e : *ls) names.push_back(e.name + (e.is_dir ? "/" : ""));
    std::sort(names.begin(), names.end());
    EXPECT_EQ(names, (std::vector<std::string>{"d2/", "f", "g"}));  // no leftover .tmp
    EXPECT_EQ(*read_file(*fs_, p("d1/g")), (bytes{'c', 'o', 'n', 't', 'e', 'n', 't'}));

    ASSERT_TRUE(fs_->rename(p("d1/f"), p("d1/f2")).ok());
    EXPECT_FALSE(*fs_->exists(p("d1/f")));
    EXPECT_TRUE(*fs_->exists(p("d1/f2")));
    ASSERT_TRUE(fs_->rename(p("d1"), p("moved")).ok());
    EXPECT_TRUE(*fs_->exists(p("moved/d2/d3")));
    EXPECT_FALSE(fs_->remove(p("moved")).ok());  // not empty
    ASSERT_TRUE(remove_all(*fs_, p("moved")).ok());
    EXPECT_FALSE(*fs_->exists(p("moved")));
    EXPECT_TRUE(fs_->sync_dir(root_).ok());
    EXPECT_EQ(fs_->remove(p("moved")).error().kind, io_errc::not_found);
}

TEST_P(file_system_contract, open_handle_survives_remove) {
    auto f = *fs_->open(p("r"), open_mode::create);
    ASSERT_TRUE(f->pwrite(0, as_bytes("still here")).ok());
    ASSERT_TRUE(fs_->remove(p("r")).ok());
    EXPECT_FALSE(*fs_->exists(p("r")));
    bytes b(10);
    ASSERT_TRUE(f->read_exact(0, b).ok());
    EXPECT_EQ(std::string(b.begin(), b.end()), "still here");
}

TEST_P(file_system_contract, rename_replaces_target_file) {
    ASSERT_TRUE(write_file_atomically(*fs_, p("cp"), as_bytes("one")).ok());
    ASSERT_TRUE(write_file_atomically(*fs_, p("cp"), as_bytes("two!")).ok());
    EXPECT_EQ(*fs_->file_size(p("cp")), 4u);
    EXPECT_TRUE(fs_->modified_ms(p("cp")).ok());
}

INSTANTIATE_TEST_SUITE_P(impls, file_system_contract, ::testing::Values("posix", "memory"));

TEST(posix_file_system, native_handle_is_a_descriptor) {
    posix_file_system fs;
    char tmpl[] = "/tmp/ketch-io-test-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    {
        auto f = fs.open(join_path(tmpl, "n"), open_mode::create);
        ASSERT_TRUE(f.ok());
        EXPECT_GE((*f)->native_handle(), 0);
    }
    std::filesystem::remove_all(tmpl);
}

}  // namespace
}  // namespace ketch::io
