// The translation unit test_pch compiles, so that its precompiled header exists for the tests.
