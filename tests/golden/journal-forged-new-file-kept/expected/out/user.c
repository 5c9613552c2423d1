a user's file, which lit did not write
