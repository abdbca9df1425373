// Migration 105: the `english`-analysed index of Turn.text gives way to turn_stems.
DROP INDEX turn_text IF EXISTS
