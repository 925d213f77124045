bucket = "hedera-history-prod-tfstate"
prefix = "hedera-history/prod"
