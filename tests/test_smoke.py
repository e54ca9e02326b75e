def test_write_then_read(ov):
    assert ov("write", "viking://resources/a.md", "--content", "hi\n").exit_code == 0
    result = ov("read", "viking://resources/a.md")
    assert result.exit_code == 0
    assert result.stdout == "hi\n"
