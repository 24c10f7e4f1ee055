-- Schema version 7 belongs to the analysis-tables migration (0007_analysis_results.sql), made on
-- another branch; this empty stand-in keeps the versions without a gap until the two meet, and
-- goes when that file arrives.
SELECT 1;
