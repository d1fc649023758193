// ListObjectsV2's answer as the S3 API reference shows it.
#include <gtest/gtest.h>

#include "objstore/list_xml.h"

using namespace ketch::objstore;

TEST(list_xml, keys_sizes_times_and_the_next_page) {
    auto page = parse_list_objects(R"(<?xml version="1.0" encoding="UTF-8"?>
<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Name>b</Name><Prefix>data/</Prefix>
<KeyCount>2</KeyCount><MaxKeys>2</MaxKeys><IsTruncated>true</IsTruncated>
<NextContinuationToken>1ueGcxLPRx1Tr/XYExHnhbYLgveDs2J/wm36Hy4vbOwM=</NextContinuationToken>
<Contents><Key>data/a&amp;b</Key><LastModified>2026-12-04T19:10:23.000Z</LastModified><ETag>"x"</ETag><Size>434234</Size></Contents>
<Contents><Key>data/c</Key><LastModified>1970-01-01T00:00:10Z</LastModified><Size>0</Size></Contents>
</ListBucketResult>)");
    ASSERT_TRUE(page);
    ASSERT_EQ(page->objects.size(), 2u);
    EXPECT_EQ(page->objects[0].key, "data/a&b");
    EXPECT_EQ(page->objects[0].size, 434234u);
    EXPECT_EQ(std::chrono::system_clock::to_time_t(page->objects[0].last_modified), 1796411423);
    EXPECT_EQ(std::chrono::system_clock::to_time_t(page->objects[1].last_modified), 10);
    EXPECT_EQ(page->next_continuation, "1ueGcxLPRx1Tr/XYExHnhbYLgveDs2J/wm36Hy4vbOwM=");
}

TEST(list_xml, an_empty_last_page) {
    auto page = parse_list_objects("<ListBucketResult><IsTruncated>false</IsTruncated></ListBucketResult>");
    ASSERT_TRUE(page);
    EXPECT_TRUE(page->objects.empty());
    EXPECT_EQ(page->next_continuation, "");
}

TEST(list_xml, malformed_answers_are_refused) {
    for (const char* bad : {"<Contents><Key>k</Key><Size>1</Size></Contents>",
                            "<Contents><Key>k</Key><LastModified>yesterday</LastModified><Size>1</Size></Contents>",
                            "<Contents><Key>k&bogus;</Key><LastModified>2026-01-01T00:00:00Z</LastModified>"
                            "<Size>1</Size></Contents>",
                            "<Contents><Key>k</Key><LastModified>2026-01-01T00:00:00Z</LastModified><Size>-1</Size>"
                            "</Contents>",
                            "<Contents><Key>k</Key>", "<IsTruncated>true</IsTruncated>"})
        EXPECT_FALSE(parse_list_objects(bad)) << bad;
}
