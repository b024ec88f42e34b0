/** DATA_DIR holds the database (password hashes, encrypted secrets, all field data) and the keys: owner only. */
export const DATA_DIR_MODE = 0o700;
