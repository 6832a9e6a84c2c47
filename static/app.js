// Small progressive enhancements; every form works without this file.
