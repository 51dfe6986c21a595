// Runner for the host tests (Catch2's session: catch_session.cpp).
int algo_test_run(int argc, char** argv);

int main(int argc, char** argv) { return algo_test_run(argc, argv); }
